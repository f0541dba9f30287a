/* Small DOM and SVG builders, and the status line. */

const SVG = "http://www.w3.org/2000/svg";

/** An HTML element: h("button", {onclick}, "text", child...). */
export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  setAttrs(el, attrs);
  el.append(...children.flat().filter((c) => c !== null && c !== undefined && c !== false));
  return el;
}

/** An SVG element: s("circle", {cx, cy, r}, children...). */
export function s(tag, attrs = {}, ...children) {
  const el = document.createElementNS(SVG, tag);
  setAttrs(el, attrs);
  el.append(...children.flat().filter((c) => c !== null && c !== undefined && c !== false));
  return el;
}

function setAttrs(el, attrs) {
  for (const [k, v] of Object.entries(attrs)) {
    if (v === undefined || v === null || v === false) continue;
    if (k.startsWith("on")) el.addEventListener(k.slice(2), v);
    else if (k === "text") el.textContent = v;
    else el.setAttribute(k, v === true ? "" : v);
  }
}

/** A titled SVG drawing with a text alternative: a group (not an image), so the parts offered as buttons
    inside it stay reachable for assistive technology. */
export function drawing(label, viewBox, ...children) {
  return s("svg", { viewBox, role: "group", "aria-roledescription": "board", "aria-label": label, class: "board" }, s("title", { text: label }), ...children);
}

export function status(text, error = false) {
  const el = document.getElementById("status");
  el.textContent = text;
  el.className = error ? "error" : "";
}

export const SEAT_COLOURS = ["#c0392b", "#2471a3", "#d4ac0d", "#229954", "#8e44ad", "#d35400"];

/** A flat-top hex corner list around (x, y) for radius r. */
export function hexPoints(x, y, r) {
  const pts = [];
  for (let i = 0; i < 6; i++) {
    const a = (Math.PI / 3) * i;
    pts.push(`${(x + r * Math.cos(a)).toFixed(1)},${(y + r * Math.sin(a)).toFixed(1)}`);
  }
  return pts.join(" ");
}

/** Axial (q, r) of a flat-top hex to its centre for radius size. */
export function axial(q, r, size) {
  return [size * 1.5 * q, size * Math.sqrt(3) * (r + q / 2)];
}
