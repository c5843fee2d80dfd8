// A new game's options as a form: one control per field of the kind's Options message
// (its proto descriptor says the type), labelled by GetGameKind's OptionInfo (the
// server's sentence, in the page's language), set to the kind's defaults, or to a
// preset's options in one click. Lists of small messages (Mooki's stars per family) get one
// number per value of their enum.

import { ScalarType, create, type DescField, type DescMessage, type GameKind, type GameOptions, type GameOptionsInit } from "@ludotheque/client";

import { h, uid } from "../../dom";
import { t } from "../../i18n";
import { enumLabel, fieldLabel } from "../../views/message";

type Values = Record<string, unknown>;

export class OptionsForm {
  readonly element: HTMLElement;
  private readonly controls = new Map<string, HTMLElement>();

  constructor(
    private readonly kind: GameKind,
    private readonly desc: DescMessage,
  ) {
    this.element = h("div", { class: "options-grid" }, ...desc.fields.flatMap((field) => this.control(field) ?? []));
    this.reset();
  }

  /** Every control back to the kind's defaults. */
  reset(): void {
    this.set(inner(this.kind.defaults), true);
  }

  /** The defaults, then what `options` (a preset) sets. */
  apply(options: GameOptions | undefined): void {
    this.reset();
    this.set(inner(options), false);
  }

  /** The options as CreateGame takes them. */
  read(): GameOptionsInit {
    const values: Values = {};
    for (const field of this.desc.fields) {
      const element = this.controls.get(field.localName);
      if (element === undefined) continue;
      const value = readControl(field, element);
      if (value !== undefined) values[field.localName] = value;
    }
    return { game: { case: this.kind.kind, value: create(this.desc, values as never) } } as GameOptionsInit;
  }

  /** The words for one value of an enum option, the server's where it has some. */
  private valueWords(field: DescField, name: string, number: number, localName: string): string {
    const info = this.kind.options.find((o) => o.field === field.name);
    const said = info?.values.find((v) => v.name === name)?.description?.text;
    if (said) return said;
    const families = this.kind.material.case === "mooki" ? this.kind.material.value.families : [];
    return families.find((f) => f.family === number)?.name?.text || enumLabel(localName);
  }

  private control(field: DescField): HTMLElement | undefined {
    // The server's sentence about the option is its label (in the page's language).
    const label = this.kind.options.find((o) => o.field === field.name)?.description?.text || fieldLabel(field.name);
    const id = uid("option");
    let element: HTMLElement;
    let control: HTMLElement;
    if (field.fieldKind === "scalar" && field.scalar === ScalarType.BOOL) {
      control = h("input", { attrs: { type: "checkbox", id } });
      element = h("div", { class: "option check" }, control, h("label", { attrs: { for: id } }, label));
    } else if (field.fieldKind === "scalar") {
      control = h("input", { attrs: { type: "number", min: 0, id, inputmode: "numeric" } });
      element = h("div", { class: "option" }, h("label", { attrs: { for: id } }, label), control);
    } else if (field.fieldKind === "enum") {
      control = h(
        "select",
        { attrs: { id } },
        ...field.enum.values.map((value) => h("option", { attrs: { value: value.number } }, this.valueWords(field, value.name, value.number, value.localName))),
      );
      element = h("div", { class: "option" }, h("label", { attrs: { for: id } }, label), control);
    } else if (field.fieldKind === "list" && field.listKind === "enum") {
      control = h(
        "fieldset",
        { class: "several" },
        h("legend", {}, label),
        ...field.enum.values
          .filter((value) => value.number !== 0)
          .map((value) => {
            const valueId = uid("option");
            return h("div", { class: "check" }, h("input", { attrs: { type: "checkbox", id: valueId, value: value.number } }), h("label", { attrs: { for: valueId } }, this.valueWords(field, value.name, value.number, value.localName)));
          }),
      );
      element = h("div", { class: "option wide" }, control);
    } else if (field.fieldKind === "list" && field.listKind === "message" && keyed(field.message) !== undefined) {
      const [key] = keyed(field.message) ?? [];
      control = h(
        "fieldset",
        { class: "several numbers" },
        h("legend", {}, label),
        ...(key?.fieldKind === "enum" ? key.enum.values : [])
          .filter((value) => value.number !== 0)
          .map((value) => {
            const valueId = uid("option");
            return h(
              "div",
              { class: "option" },
              h("label", { attrs: { for: valueId } }, this.valueWords(field, value.name, value.number, value.localName)),
              h("input", { attrs: { type: "number", min: 1, max: 9, id: valueId, "data-key": value.number, placeholder: t("lobby.default") } }),
            );
          }),
      );
      element = h("div", { class: "option wide" }, control);
    } else {
      return undefined;
    }
    control.setAttribute("data-field", field.name);
    this.controls.set(field.localName, control);
    return element;
  }

  /** Sets the controls from `values`: every field (`all`: the defaults), or only those
   * a preset sets (a zero or an empty list leaves the default). */
  private set(values: Values | undefined, all: boolean): void {
    if (values === undefined) return;
    for (const field of this.desc.fields) {
      const control = this.controls.get(field.localName);
      const value = values[field.localName];
      if (control === undefined) continue;
      if (control instanceof HTMLInputElement && control.type === "checkbox") {
        if (all || value === true) control.checked = value === true;
      } else if (control instanceof HTMLInputElement) {
        // A number is never filled in for the defaults: empty says "as the rules say".
        if (all) {
          control.value = "";
          control.placeholder = typeof value === "number" && value !== 0 ? String(value) : t("lobby.default");
        } else if (typeof value === "number" && value !== 0) control.value = String(value);
      } else if (control instanceof HTMLSelectElement) {
        if (all || (typeof value === "number" && value !== 0)) control.value = String(value ?? 0);
      } else if (Array.isArray(value) && (all || value.length > 0)) {
        setList(field, control, value);
      }
    }
  }
}

/** The game's own options out of their envelope. */
function inner(options: GameOptions | undefined): Values | undefined {
  return options?.game.value as Values | undefined;
}

/** A message of two fields, an enum and a number (Mooki's TrophyStars): its two fields. */
function keyed(desc: DescMessage): [DescField, DescField] | undefined {
  const [key, number] = desc.fields;
  if (desc.fields.length !== 2 || key.fieldKind !== "enum" || number.fieldKind !== "scalar") return undefined;
  return [key, number];
}

function setList(field: DescField, control: HTMLElement, value: unknown[]): void {
  if (field.fieldKind === "list" && field.listKind === "enum") {
    for (const box of control.querySelectorAll<HTMLInputElement>("input[type=checkbox]")) box.checked = value.includes(Number(box.value));
  } else if (field.fieldKind === "list" && field.listKind === "message") {
    const [key, number] = keyed(field.message) ?? [];
    for (const input of control.querySelectorAll<HTMLInputElement>("input[data-key]")) {
      const entry = value.find((item) => (item as Values)[key?.localName ?? ""] === Number(input.dataset["key"])) as Values | undefined;
      input.value = entry ? String(entry[number?.localName ?? ""]) : "";
    }
  }
}

function readControl(field: DescField, control: HTMLElement): unknown {
  if (control instanceof HTMLInputElement && control.type === "checkbox") return control.checked;
  if (control instanceof HTMLInputElement) return control.value === "" ? undefined : Number(control.value);
  if (control instanceof HTMLSelectElement) return Number(control.value);
  if (field.fieldKind === "list" && field.listKind === "enum") {
    return [...control.querySelectorAll<HTMLInputElement>("input:checked")].map((input) => Number(input.value));
  }
  if (field.fieldKind === "list" && field.listKind === "message") {
    const [key, number] = keyed(field.message) ?? [];
    return [...control.querySelectorAll<HTMLInputElement>("input[data-key]")]
      .filter((input) => input.value !== "")
      .map((input) => ({ [key?.localName ?? ""]: Number(input.dataset["key"]), [number?.localName ?? ""]: Number(input.value) }));
  }
  return undefined;
}
