package io.treecat.rest.nativeapi;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/** Marks a resource method whose body is limited by {@link BodyLimits#maxLoadBytes()} instead of the request limit. */
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.METHOD)
@interface LargeBody {}
