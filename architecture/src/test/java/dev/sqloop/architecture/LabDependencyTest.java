package dev.sqloop.architecture;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.Test;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;

/**
 * Nothing in the build depends on the {@code lab} module (the benchmarks): every pom of the reactor is read, and a
 * dependency on {@code dev.sqloop:lab} anywhere in it (dependencies, dependency management, plugins) fails, but one:
 * this module's own, in test scope, which lets {@link ArchitectureTest} see the lab's classes and ships nothing.
 */
class LabDependencyTest {
    /** The checkout: surefire runs in this module's directory. */
    private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();

    @Test
    void noModuleOfTheReactorDependsOnTheLab() throws Exception {
        List<String> modules = modules(parse(Files.readAllBytes(ROOT.resolve("pom.xml"))));
        assertTrue(modules.contains("lab") && modules.contains("embedded") && modules.contains("cli") && modules.size() >= 15,
                "the reactor's modules, read from the root pom: " + modules);
        List<String> found = new ArrayList<>(labDependencies("(root)", parse(Files.readAllBytes(ROOT.resolve("pom.xml")))));
        for (String module : modules) {
            found.addAll(labDependencies(module, parse(Files.readAllBytes(ROOT.resolve(module).resolve("pom.xml")))));
        }
        assertEquals(List.of("architecture: dev.sqloop:lab (test)"), found,
                "only the architecture rules may name lab, in test scope; anything else puts the benchmarks in the product");
    }

    /** The check reads what Maven reads: a lab dependency in any place of a pom is found, with its scope. */
    @Test
    void shouldFindALabDependencyWhereverAPomDeclaresIt() throws Exception {
        String pom = """
                <project>
                  <dependencies>
                    <dependency><groupId>dev.sqloop</groupId><artifactId>embedded</artifactId></dependency>
                    <dependency><groupId>${project.groupId}</groupId><artifactId>lab</artifactId></dependency>
                  </dependencies>
                  <dependencyManagement><dependencies>
                    <dependency><groupId>dev.sqloop</groupId><artifactId>lab</artifactId><scope>runtime</scope></dependency>
                  </dependencies></dependencyManagement>
                  <build><plugins><plugin><dependencies>
                    <dependency><groupId>other.group</groupId><artifactId>lab</artifactId></dependency>
                  </dependencies></plugin></plugins></build>
                </project>""";
        assertEquals(List.of("gateway: dev.sqloop:lab (compile)", "gateway: dev.sqloop:lab (runtime)"),
                labDependencies("gateway", parse(pom.getBytes(StandardCharsets.UTF_8))));
    }

    static List<String> modules(Document root) {
        List<String> out = new ArrayList<>();
        NodeList nodes = root.getElementsByTagName("module");
        for (int i = 0; i < nodes.getLength(); i++) out.add(nodes.item(i).getTextContent().trim());
        return out;
    }

    /** Every {@code <dependency>} on sqloop's {@code lab} in the pom, as "module: dev.sqloop:lab (scope)". */
    static List<String> labDependencies(String module, Document pom) {
        List<String> out = new ArrayList<>();
        NodeList deps = pom.getElementsByTagName("dependency");
        for (int i = 0; i < deps.getLength(); i++) {
            Element d = (Element) deps.item(i);
            String group = child(d, "groupId", ""), artifact = child(d, "artifactId", "");
            boolean sqloop = group.equals("dev.sqloop") || group.equals("${project.groupId}");
            if (sqloop && artifact.equals("lab")) out.add(module + ": dev.sqloop:lab (" + child(d, "scope", "compile") + ")");
        }
        return out;
    }

    private static String child(Element e, String name, String fallback) {
        NodeList n = e.getElementsByTagName(name);
        return n.getLength() == 0 ? fallback : n.item(0).getTextContent().trim();
    }

    private static Document parse(byte[] xml) throws Exception {
        DocumentBuilderFactory f = DocumentBuilderFactory.newInstance();
        f.setFeature("http://apache.org/xml/features/disallow-doctype-decl", true);
        return f.newDocumentBuilder().parse(new ByteArrayInputStream(xml));
    }
}
