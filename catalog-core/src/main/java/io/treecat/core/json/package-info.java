/** What JSON from a client may hold: limits every JSON reader of the native API and the adapters applies. */
package io.treecat.core.json;
