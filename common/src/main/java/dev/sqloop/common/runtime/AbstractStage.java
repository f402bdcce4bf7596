package dev.sqloop.common.runtime;

import java.util.Objects;

/** The name and input type every {@link Stage} declares, held once: a stage writes only {@code process}. */
public abstract class AbstractStage<I> implements Stage<I> {
    private final String name;
    private final Class<I> inputType;

    protected AbstractStage(String name, Class<I> inputType) {
        this.name = Objects.requireNonNull(name, "name");
        this.inputType = Objects.requireNonNull(inputType, "inputType");
    }

    @Override
    public final String name() {
        return name;
    }

    @Override
    public final Class<I> inputType() {
        return inputType;
    }
}
