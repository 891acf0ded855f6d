package io.treecat.server.config;

import io.treecat.core.error.CatalogException;
import jakarta.validation.Constraint;
import jakarta.validation.ConstraintValidator;
import jakarta.validation.ConstraintValidatorContext;
import jakarta.validation.Payload;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * A catalog's storage settings pass the lakehouse's own check ({@code StorageSettings.check}, with this process's
 * environment): a scheme this server has a FileIO for, an S3 endpoint or region, no credential among the properties,
 * credentials that can be found. A refusal names the key below {@code warehouse.catalogs.<name>}.
 */
@Constraint(validatedBy = ValidStorage.Check.class)
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
public @interface ValidStorage {
    String message() default "invalid storage settings";

    Class<?>[] groups() default {};

    Class<? extends Payload>[] payload() default {};

    /** Runs the lakehouse's check and reports its message at the key it names. */
    final class Check implements ConstraintValidator<ValidStorage, CatalogStorageConfig> {
        @Override
        public boolean isValid(CatalogStorageConfig value, ConstraintValidatorContext context) {
            if (value == null || !value.isComplete()) {
                // The field constraints report what is missing.
                return true;
            }
            try {
                value.toSettings().check(System::getenv);
                return true;
            } catch (CatalogException e) {
                context.disableDefaultConstraintViolation();
                Object key = e.context().getOrDefault("key", e.context().getOrDefault("field", "location"));
                // The message is the lakehouse's fixed text (no value, no secret); escaped for the template language.
                String message = e.getMessage()
                        .replace("\\", "\\\\")
                        .replace("{", "\\{")
                        .replace("}", "\\}")
                        .replace("$", "\\$");
                context.buildConstraintViolationWithTemplate(message)
                        .addPropertyNode(String.valueOf(key))
                        .addConstraintViolation();
                return false;
            }
        }
    }
}
