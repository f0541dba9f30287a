/* A board in a window you can pan and zoom: the drawing keeps 1 unit = `zoom` CSS pixels, never shrunk to fit,
so its text (12 units and more) and pieces (16 units and more) stay readable however large the board grows.
Drag (or scroll) to pan; the − / + / Fit buttons or Ctrl + wheel to zoom. The zoom is kept across re-draws. */

import { h } from "./dom.js";

export const ZOOMS = [0.5, 0.75, 1, 1.25, 1.5, 2, 2.5];

/** The zoom a board opens at: as wide and as tall as its window allows, between 1 (readable) and 1.75. */
export function fitZoom(width, room, height = 0, roomHeight = Infinity) {
  return Math.max(1, Math.min(1.75, room / width, height ? roomHeight / height : Infinity));
}

/** The height a board's window may take on this screen (the page's header and bars above it). */
const paneHeight = () => Math.max(240, window.innerHeight - (window.innerWidth <= 900 ? 0.3 * window.innerHeight : 190));

/**
 * `svg` in a pannable window; `state.zoom` (null: fit) is read and written. Returns the element.
 * `onWheel(ev)` may take a wheel event first (a tile being rotated); it returns true when it did.
 */
export function viewport(svg, state, onWheel = null) {
  const [, , w, hgt] = svg.getAttribute("viewBox").split(/\s+/).map(Number);
  const win = h("div", { class: "viewport", tabindex: "0", role: "region", "aria-label": "board window: arrow keys pan, + and − zoom" }, svg);
  const label = h("output", { class: "zoom-level", "aria-live": "polite" });
  const apply = (z) => {
    state.zoomNow = z;
    svg.setAttribute("width", String(Math.round(w * z)));
    svg.setAttribute("height", String(Math.round(hgt * z)));
    label.textContent = `${Math.round(z * 100)}%`;
    // fitted, the window holds the whole board (a board too tall at the readable zoom grows its window, so
    // it fits its pane at every stage); zoomed in, the window keeps its size and pans
    win.style.maxHeight = state.zoom ? "" : `max(var(--pane), ${Math.ceil(hgt * z) + 2}px)`;
  };
  const set = (z) => {
    const before = state.zoomNow || 1;
    const cx = (win.scrollLeft + win.clientWidth / 2) / before, cy = (win.scrollTop + win.clientHeight / 2) / before;
    state.zoom = z;
    apply(z);
    win.scrollLeft = cx * z - win.clientWidth / 2;
    win.scrollTop = cy * z - win.clientHeight / 2;
  };
  const step = (dir) => {
    const now = state.zoomNow || 1;
    const next = dir > 0 ? ZOOMS.find((z) => z > now + 1e-6) : [...ZOOMS].reverse().find((z) => z < now - 1e-6);
    if (next) set(next);
  };
  const fitted = () => fitZoom(w, Math.max(300, win.clientWidth - 4), hgt, paneHeight());
  const fit = () => { state.zoom = null; apply(fitted()); };
  const tools = h("div", { class: "zoom-tools", role: "group", "aria-label": "zoom" },
    h("button", { type: "button", class: "zoom-out", "aria-label": "zoom out", onclick: () => step(-1), text: "−" }),
    label,
    h("button", { type: "button", class: "zoom-in", "aria-label": "zoom in", onclick: () => step(1), text: "+" }),
    h("button", { type: "button", class: "zoom-fit", onclick: fit, text: "Fit" }));
  apply(state.zoom || fitZoom(w, 700, hgt, paneHeight()));
  requestAnimationFrame(() => { if (!state.zoom && win.isConnected) apply(fitted()); });
  win.addEventListener("wheel", (ev) => {
    if (onWheel && onWheel(ev)) { ev.preventDefault(); return; }
    if (ev.ctrlKey) { ev.preventDefault(); step(ev.deltaY < 0 ? 1 : -1); }
  }, { passive: false });
  win.addEventListener("keydown", (ev) => {  // arrows scroll by themselves; + and − zoom
    if (ev.target !== win) return;
    if (ev.key === "+" || ev.key === "=") { ev.preventDefault(); step(1); }
    if (ev.key === "-" || ev.key === "_") { ev.preventDefault(); step(-1); }
  });
  dragToPan(win);
  return h("div", { class: "board-frame" }, tools, win);
}

/** Drag with the mouse to pan; a drag of a few pixels or more swallows the click that ends it. */
function dragToPan(win) {
  let from = null, moved = false;
  win.addEventListener("pointerdown", (ev) => {
    if (ev.pointerType !== "mouse" || ev.button !== 0) return;
    from = { x: ev.clientX, y: ev.clientY, left: win.scrollLeft, top: win.scrollTop };
    moved = false;
  });
  win.addEventListener("pointermove", (ev) => {
    if (!from) return;
    const dx = ev.clientX - from.x, dy = ev.clientY - from.y;
    if (!moved && Math.hypot(dx, dy) < 6) return;
    moved = true;
    win.classList.add("panning");
    win.scrollLeft = from.left - dx;
    win.scrollTop = from.top - dy;
  });
  const end = () => { from = null; win.classList.remove("panning"); };
  win.addEventListener("pointerup", end);
  win.addEventListener("pointerleave", end);
  win.addEventListener("click", (ev) => { if (moved) { ev.stopPropagation(); ev.preventDefault(); moved = false; } }, true);
}
