// Building DOM and SVG nodes without innerHTML: every text the gateway sends is set as text.

const SVG = 'http://www.w3.org/2000/svg';

/** The page's first element that `selector` selects. */
export const $ = (selector) => document.querySelector(selector);

function build(element, attributes, children) {
  for (const [name, value] of Object.entries(attributes ?? {})) {
    if (value === undefined || value === null || value === false) continue;
    if (name.startsWith('on') && typeof value === 'function') {
      element.addEventListener(name.slice(2), value);
    } else if (name === 'dataset') {
      Object.assign(element.dataset, value);
    } else {
      element.setAttribute(name, value === true ? '' : String(value));
    }
  }
  append(element, children);
  return element;
}

function append(element, children) {
  for (const child of children) {
    if (child === undefined || child === null || child === false) continue;
    if (Array.isArray(child)) append(element, child);
    else element.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
}

/** An HTML element: h('td', { class: 'num' }, '12'). */
export const h = (tag, attributes, ...children) => build(document.createElement(tag), attributes, children);

/** An SVG element: s('rect', { x: 0, y: 0, width: 10, height: 4 }). */
export const s = (tag, attributes, ...children) => build(document.createElementNS(SVG, tag), attributes, children);

/** Replaces an element's children. */
export function replace(element, ...children) {
  element.replaceChildren();
  append(element, children);
  return element;
}

/** Text shown read-only with its line numbers (drawn by the stylesheet: copied text has none). */
export function codeLines(text, label) {
  return h('pre', { class: 'code-lines', tabindex: 0, role: 'region', 'aria-label': label },
    h('code', {}, String(text ?? '').replace(/\n$/, '').split('\n').map((line) => h('span', { class: 'line' }, line, '\n'))));
}
