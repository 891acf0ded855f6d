package io.treecat.spark;

import org.apache.spark.sql.SparkSessionExtensions;
import org.apache.spark.sql.catalyst.FunctionIdentifier;
import org.apache.spark.sql.catalyst.expressions.Expression;
import org.apache.spark.sql.catalyst.expressions.ExpressionInfo;
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan;
import scala.Function1;
import scala.Tuple3;
import scala.collection.immutable.Seq;
import scala.runtime.AbstractFunction1;
import scala.runtime.BoxedUnit;

/**
 * TreeCat's Spark SQL extensions: the table-valued function {@code treecat_query} ({@link TreeCatQueryFunction}).
 * Add it beside Iceberg's: {@code spark.sql.extensions=org.apache.iceberg.spark.extensions.IcebergSparkSessionExtensions,
 * io.treecat.spark.TreeCatSparkExtensions}.
 */
public final class TreeCatSparkExtensions extends AbstractFunction1<SparkSessionExtensions, BoxedUnit> {
    @Override
    public BoxedUnit apply(SparkSessionExtensions extensions) {
        Function1<Seq<Expression>, LogicalPlan> builder = TreeCatQueryFunction::build;
        extensions.injectTableFunction(new Tuple3<>(
                FunctionIdentifier.apply(TreeCatQueryFunction.NAME),
                new ExpressionInfo(
                        TreeCatQueryFunction.class.getName(),
                        null,
                        TreeCatQueryFunction.NAME,
                        "treecat_query('<path query>' [, vid [, 'json']]) - the objects a TreeCat path query matches:"
                                + " path, id, type, vid, value",
                        ""),
                builder));
        return BoxedUnit.UNIT;
    }
}
