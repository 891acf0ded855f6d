// Building pages without HTML strings: every value from the lake goes in as text, never as markup.

/** An element with attributes (`on…` functions become listeners) and children (strings become text). */
export function el(tag, attributes = {}, ...children) {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (value === undefined || value === null || value === false) {
      continue;
    }
    if (name.startsWith('on') && typeof value === 'function') {
      element.addEventListener(name.slice(2), value);
    } else if (name === 'className') {
      element.className = value;
    } else {
      element.setAttribute(name, value === true ? '' : String(value));
    }
  }
  append(element, children);
  return element;
}

function append(element, children) {
  for (const child of children) {
    if (child === undefined || child === null || child === false) {
      continue;
    }
    if (Array.isArray(child)) {
      append(element, child);
    } else if (child instanceof Node) {
      element.appendChild(child);
    } else {
      element.appendChild(document.createTextNode(String(child)));
    }
  }
}

/** A table of `rows` (arrays of cells) under `headers`, in a scrolling wrapper; `caption` names it. */
export function table(caption, headers, rows, { numeric = [] } = {}) {
  return el('div', { className: 'table-wrap' },
    el('table', {},
      el('caption', { className: 'skip' }, caption),
      el('thead', {}, el('tr', {}, headers.map((h) => el('th', { scope: 'col' }, h)))),
      el('tbody', {}, rows.map((row) => el('tr', {},
        row.map((cell, i) => el('td', { className: numeric.includes(i) ? 'num' : undefined }, cell)))))));
}

/** A value as compact JSON, cut to `max` characters. */
export function json(value, max = 160) {
  const text = JSON.stringify(value);
  if (text === undefined) {
    return '';
  }
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

export function replace(container, ...children) {
  container.replaceChildren();
  append(container, children);
}
