package io.treecat.rest.iceberg;

import io.treecat.core.model.ObjectPath;

/** Pieces of the path-query language (docs/query-language.md) this package builds its queries from. */
final class PathQueries {
  private PathQueries() {}

  /** The steps that name {@code path} exactly: {@code /[obj_id='a']/[obj_id='b']…}. */
  static String steps(ObjectPath path) {
    StringBuilder query = new StringBuilder();
    for (String id : path.ids()) {
      query.append("/[obj_id='").append(quote(id)).append("']");
    }
    return query.toString();
  }

  /** {@code text} as the inside of a single-quoted string literal. */
  static String quote(String text) {
    return text.replace("\\", "\\\\").replace("'", "\\'");
  }
}
