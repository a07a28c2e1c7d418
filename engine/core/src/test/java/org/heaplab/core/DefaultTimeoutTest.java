package org.heaplab.core;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;

/**
 * Every test method of the engine runs under a default timeout (the surefire configuration in engine/pom.xml),
 * so a test without its own {@code @Timeout} that hangs fails instead of holding the build.
 */
@ExtendWith(DefaultTimeoutTest.Context.class)
class DefaultTimeoutTest {

    /** Hands the test its own extension context, where JUnit's configuration parameters are visible. */
    static final class Context implements ParameterResolver {
        @Override
        public boolean supportsParameter(ParameterContext p, ExtensionContext e) {
            return p.getParameter().getType() == ExtensionContext.class;
        }

        @Override
        public Object resolveParameter(ParameterContext p, ExtensionContext e) {
            return e;
        }
    }

    @Test
    void aDefaultTimeoutIsConfigured(ExtensionContext context) {
        assertEquals(Optional.of("60 s"), context.getConfigurationParameter("junit.jupiter.execution.timeout.default"));
    }
}
