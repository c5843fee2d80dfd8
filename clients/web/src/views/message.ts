// Any message of the API shown for people without knowing its game: its fields walked
// through protobuf-es's descriptors (so enum values read as names, oneofs as the case
// set), labelled from the catalogs where they have words, else from the field's name.
// The generic board and the debug panel show messages this way; moves and events are
// told in the server's own words (their descriptions) when they carry them. A field the
// game marks as holding seats (`(ludotheque.text.v1.seat)`, seat_field.proto) shows its
// players' names when the caller knows them; a repeated field it lays out as a grid
// (`(ludotheque.text.v1.grid_columns)`, grid.proto) shows as rows and columns.

import {
  CommandSchema,
  EventSchema,
  SeatField,
  getOption,
  grid_columns as gridColumns,
  seat as seatOption,
  type Command,
  type DescField,
  type DescMessage,
  type Event,
} from "@ludotheque/client";

import { humanize, lookup, t } from "../i18n";

/** A message as a tree of labelled values. */
export type Shown =
  | { kind: "value"; text: string }
  | { kind: "list"; items: Shown[] }
  | { kind: "grid"; columns: number; items: Shown[] }
  | { kind: "fields"; fields: { name: string; label: string; value: Shown }[] };

export function fieldLabel(name: string): string {
  return lookup(`field.${name}`) ?? humanize(name);
}

export function enumLabel(localName: string): string {
  return lookup(`value.${localName}`) ?? humanize(localName);
}

type Fields = Record<string, unknown>;

/** A seat's name by its number (undefined: not a seat of the game). */
export type SeatNames = (seat: number) => string | undefined;

/** The message's fields that carry something (`all`: zeros and falses too, as a view
 * shows them); the fields that hold seats named by `seats`. */
export function show(desc: DescMessage, message: unknown, all = true, seats?: SeatNames): Shown {
  const fields: { name: string; label: string; value: Shown }[] = [];
  const values = message as Fields;
  for (const member of desc.members) {
    if (member.kind === "oneof") {
      const selected = values[member.localName] as { case?: string; value?: unknown } | undefined;
      const field = member.fields.find((f) => f.localName === selected?.case);
      if (field === undefined) continue;
      const value = showField(field, selected?.value, all, seats);
      if (value !== undefined) fields.push({ name: field.name, label: fieldLabel(field.name), value });
      continue;
    }
    const value = showField(member, values[member.localName], all, seats);
    if (value !== undefined) fields.push({ name: member.name, label: fieldLabel(member.name), value });
  }
  return { kind: "fields", fields };
}

function showField(field: DescField, value: unknown, all: boolean, seats?: SeatNames): Shown | undefined {
  if (value === undefined || value === null) return undefined;
  const marked = seats && seatMark(field);
  switch (field.fieldKind) {
    case "scalar":
      if (marked === SeatField.SEAT) return seatValue(value, seats) ?? scalar(value, all);
      return scalar(value, all);
    case "enum": {
      const number = value as number;
      if (number === 0 && !all) return undefined;
      const found = field.enum.values.find((v) => v.number === number);
      return { kind: "value", text: number === 0 || !found ? t("value.none") : enumLabel(found.localName) };
    }
    case "message":
      return show(field.message, value, all, seats);
    case "list": {
      if (marked === SeatField.BY_SEAT) return bySeat(value as unknown[], all, seats);
      const grid = gridOf(field, value as unknown[]);
      if (grid !== undefined) return grid;
      const items = (value as unknown[]).map((item): Shown => {
        if (field.listKind === "message") return show(field.message, item, all, seats);
        if (marked === SeatField.SEAT) {
          const named = seatValue(item, seats);
          if (named !== undefined) return named;
        }
        if (field.listKind === "enum") {
          const found = field.enum.values.find((v) => v.number === item);
          return { kind: "value", text: found ? enumLabel(found.localName) : String(item) };
        }
        return scalar(item, true) ?? { kind: "value", text: "" };
      });
      if (items.length === 0 && !all) return undefined;
      return { kind: "list", items };
    }
    case "map": {
      const entries = Object.entries(value as Record<string, unknown>);
      return {
        kind: "fields",
        fields: entries.map(([key, item]) => ({
          name: key,
          label: key,
          value:
            field.mapKind === "message"
              ? show(field.message, item, all, seats)
              : (scalar(item, true) ?? { kind: "value", text: "" }),
        })),
      };
    }
  }
}

/** What the game marks the field as holding of the seats: read on scalars and lists of
 * them only (scripts/genproto.py refuses a mark on anything but integers). */
function seatMark(field: DescField): SeatField {
  const scalars = field.fieldKind === "scalar" || (field.fieldKind === "list" && field.listKind === "scalar");
  return scalars ? getOption(field, seatOption) : SeatField.UNSPECIFIED;
}

/** A list the game lays out as a grid (integers or enums only, as scripts/genproto.py
 * checks): its squares row by row, an enum's zero value an empty square. */
function gridOf(field: DescField, values: unknown[]): Shown | undefined {
  if (field.fieldKind !== "list" || field.listKind === "message") return undefined;
  const columns = getOption(field, gridColumns);
  if (!columns) return undefined;
  const items = values.map((item): Shown => {
    if (field.listKind !== "enum") return { kind: "value", text: String(item) };
    const found = item === 0 ? undefined : field.enum.values.find((v) => v.number === item);
    return { kind: "value", text: found ? enumLabel(found.localName) : item === 0 ? "" : String(item) };
  });
  return { kind: "grid", columns, items };
}

function seatValue(value: unknown, seats: SeatNames | undefined): Shown | undefined {
  const name = typeof value === "number" ? seats?.(value) : undefined;
  return name === undefined ? undefined : { kind: "value", text: name };
}

/** One value per seat, in seat order: each beside its player's name (by number past the seats). */
function bySeat(values: unknown[], all: boolean, seats: SeatNames | undefined): Shown | undefined {
  if (values.length === 0 && !all) return undefined;
  return {
    kind: "fields",
    fields: values.map((item, at) => ({
      name: String(at),
      label: seats?.(at) ?? String(at),
      value: scalar(item, true) ?? { kind: "value", text: "" },
    })),
  };
}

function scalar(value: unknown, all: boolean): Shown | undefined {
  // A move or an event in one line leaves out what is off or empty, not a zero (pile 0).
  if (!all && (value === false || value === "")) return undefined;
  if (typeof value === "boolean") return { kind: "value", text: value ? t("value.yes") : t("value.no") };
  if (value instanceof Uint8Array) return { kind: "value", text: `${value.length} bytes` };
  return { kind: "value", text: String(value) };
}

/** One line for a value: "Play (card (kind pirate, colour star, value 7))". */
export function oneLine(shown: Shown): string {
  switch (shown.kind) {
    case "value":
      return shown.text;
    case "list":
      return `[${shown.items.map((item) => oneLine(item)).join(", ")}]`;
    case "grid": {
      const rows = [];
      for (let at = 0; at < shown.items.length; at += shown.columns) {
        rows.push(shown.items.slice(at, at + shown.columns).map((item) => oneLine(item) || "·").join(" "));
      }
      return `[${rows.join(" / ")}]`;
    }
    case "fields":
      return shown.fields
        .map(({ label, value }) => {
          if (value.kind !== "fields") return `${label.toLowerCase()} ${oneLine(value)}`;
          const inner = oneLine(value);
          return inner ? `${label.toLowerCase()} (${inner})` : label.toLowerCase();
        })
        .join(", ");
  }
}

/** The game's own message inside an envelope (`{ game: { case: "mooki", value } }`). */
function payload(desc: DescMessage, envelope: unknown): { desc: DescMessage; value: unknown } | undefined {
  const oneof = desc.oneofs.find((o) => o.name === "game");
  const selected = (envelope as Fields)[oneof?.localName ?? "game"] as { case?: string; value?: unknown };
  const field = oneof?.fields.find((f) => f.localName === selected?.case);
  if (field === undefined || field.fieldKind !== "message") return undefined;
  return { desc: field.message, value: selected.value };
}

/** A move in a few words: the server's description ("Draw from the left pile (Sun
 * Mooki showing)"), else its fields, e.g. "Draw (pile 1)". */
export function describeCommand(command: Command): string {
  if (command.description?.text) return command.description.text;
  const inner = payload(CommandSchema, command);
  return inner ? capitalise(oneLine(show(inner.desc, inner.value, false))) : "?";
}

/** An event in a few words: the server's description, else its fields, e.g. "Card
 * drawn (pile 1, ...)". */
export function describeEvent(event: Event): string {
  if (event.description?.text) return event.description.text;
  if (event.table) return "";
  const inner = payload(EventSchema, event);
  return inner ? capitalise(oneLine(show(inner.desc, inner.value, false))) : "?";
}

/** The kind of an event: the name of its case, e.g. "cardDrawn" -> "Card drawn". */
export function eventKind(event: Event): string {
  if (event.table) return event.table.change.case ? fieldLabel(event.table.change.case) : "?";
  const inner = payload(EventSchema, event);
  if (!inner) return "?";
  const action = inner.desc.oneofs[0];
  const selected = action ? ((inner.value as Fields)[action.localName] as { case?: string }) : undefined;
  const field = action?.fields.find((f) => f.localName === selected?.case);
  return field ? fieldLabel(field.name) : "?";
}

/** The game's own view message, to show generically. */
export function viewPayload(desc: DescMessage, view: unknown): { desc: DescMessage; value: unknown } | undefined {
  return view === undefined ? undefined : payload(desc, view);
}

function capitalise(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
