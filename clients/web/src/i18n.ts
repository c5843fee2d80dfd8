// The app's words in English and French, from the catalogs in locales/ (JSON files a
// translator edits: one key, one sentence, `{name}` for what is filled in). The type
// of the French catalog is checked against the English one, so no key is missing.
// The game's own words (moves, events, pieces) are the server's, asked in the same
// language (api.ts).

import en from "./locales/en.json";
import fr from "./locales/fr.json";

export type Locale = "en" | "fr";
export type MessageKey = keyof typeof en;

const CATALOGS: Record<Locale, Record<MessageKey, string>> = { en, fr };
const STORAGE_KEY = "ludotheque.locale";
const listeners = new Set<() => void>();

let current: Locale = initialLocale();

function initialLocale(): Locale {
  const stored = localStorage.getItem(STORAGE_KEY);
  if (stored === "en" || stored === "fr") return stored;
  return navigator.language.toLowerCase().startsWith("fr") ? "fr" : "en";
}

/** The sentence for `key` in the current language, `{name}`s filled in from `args`. */
export function t(key: MessageKey, args: Record<string, string | number | bigint> = {}): string {
  const text = CATALOGS[current][key] ?? CATALOGS.en[key] ?? key;
  // `{n|card|cards}`: the word for one or for several, by the language's rule (French
  // says "1 carte" and "0 carte", English "1 card" and "0 cards").
  const counted = text.replace(/\{(\w+)\|([^|}]*)\|([^}]*)\}/g, (whole, name: string, one: string, other: string) =>
    name in args ? (plurals(current).select(Number(args[name])) === "one" ? one : other) : whole,
  );
  return counted.replace(/\{(\w+)\}/g, (whole, name: string) => (name in args ? String(args[name]) : whole));
}

const pluralRules = new Map<Locale, Intl.PluralRules>();
function plurals(language: Locale): Intl.PluralRules {
  let rules = pluralRules.get(language);
  if (!rules) pluralRules.set(language, (rules = new Intl.PluralRules(language)));
  return rules;
}

/** The sentence for a key built at run time (a game's name, an option), if the catalog has one. */
export function lookup(key: string): string | undefined {
  return (CATALOGS[current] as Record<string, string>)[key] ?? (CATALOGS.en as Record<string, string>)[key];
}

export function locale(): Locale {
  return current;
}

export function setLocale(next: Locale): void {
  if (next === current) return;
  current = next;
  localStorage.setItem(STORAGE_KEY, next);
  translateStatic(document);
  for (const listener of listeners) listener();
}

/** Calls `listener` after each change of language (a page re-renders itself). */
export function onLocaleChange(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/** Translates the page's static parts: `data-i18n` (text) and `data-i18n-label` (aria-label). */
export function translateStatic(root: ParentNode): void {
  document.documentElement.lang = current;
  for (const element of root.querySelectorAll<HTMLElement>("[data-i18n]")) {
    element.textContent = t(element.dataset["i18n"] as MessageKey);
  }
  for (const element of root.querySelectorAll<HTMLElement>("[data-i18n-label]")) {
    element.setAttribute("aria-label", t(element.dataset["i18nLabel"] as MessageKey));
  }
  for (const button of root.querySelectorAll<HTMLElement>("[data-locale]")) {
    button.setAttribute("aria-pressed", String(button.dataset["locale"] === current));
  }
}

/** "cold_dragon" -> "Cold dragon", "STAR_TABLE_FRENCH_GUIDE" -> "French guide" when
 * a catalog has no better words for it. */
export function humanize(name: string): string {
  const words = name.replace(/([a-z])([A-Z])/g, "$1 $2").replace(/_/g, " ").toLowerCase().trim();
  return words.charAt(0).toUpperCase() + words.slice(1);
}
