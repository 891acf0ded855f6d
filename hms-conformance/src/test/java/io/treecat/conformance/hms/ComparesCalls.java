package io.treecat.conformance.hms;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * The Thrift calls a differential IT compares between Hive and TreeCat: the registry the coverage table of
 * docs/hms-thrift.md is checked against ({@link TestCoverageTable}). {@link SharedHmsPeers} holds it true: after the
 * class, a compared call it does not declare fails it, and so does a declared call it did not compare once all its
 * tests passed.
 */
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.TYPE)
@interface ComparesCalls {
    /** Call names, as in {@code ThriftHiveMetastore.Iface}. */
    String[] value();
}
