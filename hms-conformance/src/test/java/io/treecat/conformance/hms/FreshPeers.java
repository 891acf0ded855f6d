package io.treecat.conformance.hms;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * A differential IT that needs servers nobody else touched (it checks what a fresh metastore holds): {@link
 * SharedHmsPeers} starts a pair of its own for it, stopped after the class, instead of giving it the run's shared
 * pair. Each such class costs a start of both servers; use it only where freshness is what is tested.
 */
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.TYPE)
@interface FreshPeers {}
