// The new-game form's ways to play: "as the rules say" (the kind's defaults) or one of
// the rulebooks' presets, each setting the options form in one click.

import type { GameKind } from "@ludotheque/client";

import { fill, h, uid, type Child } from "../../dom";
import { t } from "../../i18n";
import type { OptionsForm } from "./options-form";

export class PresetChoices {
  readonly element = h("fieldset", { class: "presets" });

  /** The presets of `kind`, each applied to `options` (none: the kind has no options). */
  show(kind: GameKind, options: OptionsForm | undefined): void {
    const name = `preset-${kind.kind}`;
    const items: Child[] = [presetChoice(name, "", t("lobby.asTheRulesSay"), t("lobby.asTheRulesSayAbout"), () => options?.reset(), true)];
    for (const preset of kind.presets) {
      items.push(presetChoice(name, preset.name, preset.description?.text || presetTitle(preset.name), "", () => options?.apply(preset.options), false));
    }
    fill(this.element, h("legend", {}, t("lobby.waysToPlay")), h("div", { class: "preset-row" }, ...items));
  }
}

/** A radio of the group `name`: a preset's `label` (and `about` it), `apply` when picked. */
function presetChoice(name: string, preset: string, label: string, about: string, apply: () => void, checked: boolean): HTMLElement {
  const id = uid("preset");
  return h(
    "div",
    { class: "preset-choice" },
    h("input", { attrs: { type: "radio", name, id, checked, "data-preset": preset }, on: { change: apply } }),
    h("label", { attrs: { for: id } }, h("strong", {}, label), about ? h("span", { class: "kind-about" }, about) : null),
  );
}

/** "first_game" -> "First game", when the catalog has no better words. */
function presetTitle(name: string): string {
  const words = name.replace(/_/g, " ");
  return words.charAt(0).toUpperCase() + words.slice(1);
}
