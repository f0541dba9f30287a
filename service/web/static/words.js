/* Commands and events in words: the accessible fallback for every legal command. */

/** "tikal.MovePiece" -> "Move piece". */
export function typeWords(type) {
  const name = String(type).split(".").pop();
  const words = name.replace(/([a-z])([A-Z])/g, "$1 $2").toLowerCase();
  return words.charAt(0).toUpperCase() + words.slice(1);
}

function value(v) {
  if (v === null || v === undefined) return "none";
  if (Array.isArray(v)) return v.length ? v.map(value).join(" ") : "none";
  if (typeof v === "object") return Object.values(v).map(value).join(" ");
  return String(v);
}

/** True when every field but the type is a flag or empty: a command that is one button, its words its label. */
export function plainCommand(command) {
  return Object.entries(command).every(([k, v]) => k === "type" || v === null || typeof v === "boolean");
}

/** A command as one line of words, e.g. "Move piece: from q 0 r -2, to q 0 r -1". */
export function commandWords(command) {
  const fields = Object.entries(command).filter(([k, v]) => k !== "type" && v !== null && v !== false);
  if (!fields.length) return typeWords(command.type);
  const parts = [];
  const used = new Set();
  for (const [k, v] of fields) {
    if (used.has(k)) continue;
    const m = k.match(/^(from|to)_q$/);
    if (m) {
      parts.push(`${m[1]} (${v}, ${command[`${m[1]}_r`]})`);
      used.add(`${m[1]}_r`);
    } else if (k === "q" && "r" in command) {
      parts.push(`at (${v}, ${command.r})`);
      used.add("r");
    } else if (k === "x" && "y" in command) {
      parts.push(`at (${v}, ${command.y})`);
      used.add("y");
    } else {
      parts.push(v === true ? k.replace(/_/g, " ") : `${k.replace(/_/g, " ")} ${value(v)}`);
    }
  }
  return `${typeWords(command.type)}: ${parts.join(", ")}`;
}

/** An event as one line: its type in words and its short fields. */
export function eventWords(event) {
  const data = event.data || {};
  const parts = Object.entries(data)
    .filter(([, v]) => v !== null && typeof v !== "object")
    .slice(0, 5)
    .map(([k, v]) => `${k.replace(/_/g, " ")} ${v}`);
  return `v${event.version} ${typeWords(event.type)}${parts.length ? ": " + parts.join(", ") : ""}`;
}
