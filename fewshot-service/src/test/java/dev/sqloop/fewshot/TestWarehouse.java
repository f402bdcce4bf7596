package dev.sqloop.fewshot;

import dev.sqloop.fewshot.schema.JdbcSchemaSource;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;

/** A small shop warehouse in a real DuckDB file, with table and column comments and low-cardinality columns. */
public final class TestWarehouse {
    private TestWarehouse() {}

    public static Path create(Path dir) throws SQLException {
        Path file = dir.resolve("shop.duckdb");
        try (Connection c = DriverManager.getConnection("jdbc:duckdb:" + file); Statement s = c.createStatement()) {
            for (String sql : new String[] {
                    "CREATE TABLE customers (customer_id INTEGER PRIMARY KEY, name VARCHAR, city VARCHAR, signup_date DATE)",
                    "COMMENT ON TABLE customers IS 'People who buy from the shop'",
                    "INSERT INTO customers VALUES (1,'Ann','Berlin','2023-01-02'),(2,'Bob','Paris','2023-02-03'),(3,'Cy','Rome','2024-03-04'),(4,'Di','Berlin','2024-05-06'),(5,'Ed','Madrid','2024-06-01'),(6,'Flo','Vienna','2024-07-01'),(7,'Gus','Oslo','2024-08-01')",
                    "CREATE TABLE orders (order_id INTEGER PRIMARY KEY, customer_id INTEGER, order_date DATE, status VARCHAR, total_amount DECIMAL(10,2))",
                    "COMMENT ON TABLE orders IS 'Purchases placed by customers'",
                    "COMMENT ON COLUMN orders.status IS 'shipped, pending or cancelled'",
                    "INSERT INTO orders VALUES (10,1,'2024-01-05','shipped',30.5),(11,2,'2024-01-06','pending',12),(12,1,'2024-02-01','cancelled',99.9),(13,3,'2024-02-02','shipped',5)",
                    "CREATE TABLE products (product_id INTEGER PRIMARY KEY, name VARCHAR, category VARCHAR, price DECIMAL(10,2))",
                    "COMMENT ON TABLE products IS 'Articles for sale'",
                    "INSERT INTO products VALUES (100,'Chess','games',20),(101,'Lego','toys',50),(102,'Dune','books',9),(103,'Yoyo','toys',3)",
                    "CREATE TABLE order_items (order_id INTEGER, product_id INTEGER, quantity INTEGER)",
                    "COMMENT ON TABLE order_items IS 'Lines of an order: which product, how many units'",
                    "INSERT INTO order_items VALUES (10,100,1),(10,101,2),(11,102,1),(12,103,5),(13,100,1)",
                    "CREATE TABLE employees (employee_id INTEGER PRIMARY KEY, full_name VARCHAR, department_id INTEGER, salary DECIMAL(10,2), hire_date DATE)",
                    "INSERT INTO employees VALUES (1,'Zoe',1,5000,'2019-01-01'),(2,'Yan',2,6000,'2021-06-01')",
                    "CREATE TABLE departments (department_id INTEGER PRIMARY KEY, department_name VARCHAR, budget DECIMAL(12,2))",
                    "INSERT INTO departments VALUES (1,'Sales',100000),(2,'Engineering',250000)",
                    "CREATE TABLE suppliers (supplier_id INTEGER PRIMARY KEY, supplier_name VARCHAR, country VARCHAR)",
                    "INSERT INTO suppliers VALUES (1,'Acme','Germany'),(2,'Globex','France')"}) {
                s.execute(sql);
            }
        }
        return file;
    }

    /** A schema source reading {@code file} for any datasource name. */
    public static JdbcSchemaSource schemaSource(Path file) {
        return new JdbcSchemaSource(ds -> {
            Connection c = DriverManager.getConnection("jdbc:duckdb:" + file);
            return c;
        }, "main");
    }
}
