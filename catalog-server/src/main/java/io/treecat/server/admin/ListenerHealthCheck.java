package io.treecat.server.admin;

import static java.util.Objects.requireNonNull;

import com.codahale.metrics.health.HealthCheck;
import java.util.function.BooleanSupplier;
import java.util.function.IntSupplier;

/**
 * Healthy while one listener (REST, gRPC, ...) is accepting connections. One class for every
 * listener: it only asks whether it serves and on which port.
 */
public final class ListenerHealthCheck extends HealthCheck {
    private final String name;
    private final BooleanSupplier serving;
    private final IntSupplier port;

    public ListenerHealthCheck(String name, BooleanSupplier serving, IntSupplier port) {
        this.name = requireNonNull(name, "name is null");
        this.serving = requireNonNull(serving, "serving is null");
        this.port = requireNonNull(port, "port is null");
    }

    @Override
    protected Result check() {
        if (!serving.getAsBoolean()) {
            return Result.unhealthy(name + " listener is not accepting connections");
        }
        return Result.builder()
                .healthy()
                .withMessage(name + " listener is accepting connections")
                .withDetail("port", port.getAsInt())
                .build();
    }
}
