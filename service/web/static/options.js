/* A kind's options as form fields, generated from its JSON schema (shared by the game and tournament forms). */

import { h } from "./dom.js";

/** The schema's object (following a top-level $ref into $defs). */
export function resolve(schema) {
  if (schema && schema.$ref) return schema.$defs[schema.$ref.split("/").pop()];
  return schema || { properties: {} };
}

/** One field for option `name`, ids `${prefix}${name}`; null for structured options (they keep their defaults). */
export function optionField(name, prop, prefix = "opt-") {
  const id = `${prefix}${name}`;
  const label = h("label", { for: id, text: name.replace(/_/g, " ") });
  const help = prop.description ? h("small", { id: `${id}-help`, text: prop.description }) : null;
  const described = help ? `${id}-help` : undefined;
  let input;
  if (prop.enum) {
    input = h("select", { id, name, "aria-describedby": described },
      ...prop.enum.map((v) => h("option", { value: JSON.stringify(v), selected: v === prop.default, text: String(v) })));
    input.read = () => JSON.parse(input.value);
  } else if (prop.type === "boolean") {
    input = h("input", { id, name, type: "checkbox", checked: !!prop.default, "aria-describedby": described });
    input.read = () => input.checked;
  } else if (prop.type === "integer" || prop.type === "number") {
    input = h("input", { id, name, type: "number", value: prop.default ?? "", min: prop.minimum, max: prop.maximum,
      "aria-describedby": described });
    input.read = () => Number(input.value);
  } else {
    return null;
  }
  return { name, el: h("div", { class: "field" }, label, input, help), input };
}

/**
 * A kind selector, a seats field and the chosen kind's option fields, kept in step.
 * Returns {kindField, seatsField, optionsBox, kind(), seats(), options()}; ids start with `prefix`.
 */
export function kindFields(kinds, prefix = "") {
  const kindSel = h("select", { id: `${prefix}kind`, name: "kind" },
    ...kinds.map((k) => h("option", { value: k.kind, text: k.title || k.kind })));
  const seats = h("input", { id: `${prefix}seats`, name: "seats", type: "number" });
  const optionsBox = h("fieldset", { id: `${prefix}options` });
  let fields = [];
  const fill = () => {
    const kind = kinds.find((k) => k.kind === kindSel.value);
    seats.min = kind.min_players; seats.max = kind.max_players;
    seats.value = Math.max(kind.min_players, Math.min(2, kind.max_players));
    const schema = resolve(kind.options_schema);
    fields = Object.entries(schema.properties || {}).map(([n, p]) => optionField(n, p, `${prefix}opt-`)).filter(Boolean);
    optionsBox.replaceChildren(h("legend", { text: `${kind.title || kind.kind} options` }), ...fields.map((f) => f.el));
  };
  kindSel.addEventListener("change", fill);
  fill();
  return {
    kindField: h("div", { class: "field" }, h("label", { for: `${prefix}kind`, text: "Game" }), kindSel),
    seatsField: h("div", { class: "field" }, h("label", { for: `${prefix}seats`, text: prefix ? "Players per table" : "Seats" }), seats),
    optionsBox,
    kind: () => kindSel.value,
    seats: () => Number(seats.value),
    options: () => Object.fromEntries(fields.map((f) => [f.name, f.input.read()])),
  };
}
