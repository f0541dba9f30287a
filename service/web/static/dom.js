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

/** Replace `root`'s children, keeping what the user typed or chose in its fields (matched by id) and where the
    focus and caret were: a page redrawn by a live update must not wipe a half-typed invitation code. */
export function redrawKeepingFields(root, ...children) {
  const fields = new Map();
  for (const el of root.querySelectorAll("input[id], select[id], textarea[id]")) {
    fields.set(el.id, el.multiple ? [...el.selectedOptions].map((o) => o.value) : el.type === "checkbox" ? el.checked : el.value);
  }
  const active = root.contains(document.activeElement) ? document.activeElement : null;
  const caret = active && typeof active.selectionStart === "number" ? [active.selectionStart, active.selectionEnd] : null;
  root.replaceChildren(...children.flat().filter((c) => c !== null && c !== undefined && c !== false));
  for (const [id, value] of fields) {
    const el = root.querySelector(`#${CSS.escape(id)}`);
    if (!el) continue;
    if (el.multiple) for (const o of el.options) o.selected = value.includes(o.value);
    else if (el.type === "checkbox") el.checked = value;
    else if (el.tagName !== "SELECT" || [...el.options].some((o) => o.value === value)) el.value = value;
  }
  const again = active && active.id ? root.querySelector(`#${CSS.escape(active.id)}`) : null;
  if (again) {
    again.focus();
    if (caret && typeof again.setSelectionRange === "function") again.setSelectionRange(...caret);
  }
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
