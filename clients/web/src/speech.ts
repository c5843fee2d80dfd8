// The play page read aloud, for a child who cannot read yet: the browser's own voice
// (the Web Speech API's speechSynthesis, nothing fetched), in the page's language, a
// little slower than an adult's. On unless this device turned it off (the speaker switch
// beside the sound switch, remembered in localStorage "ludotheque.speech").
//
// Sentences queue one after another; `say(..., { now: true })` drops what is still
// waiting (a tap that skips the moves shown). A browser that refuses to speak before the
// first tap on a freshly loaded page ("not-allowed") says its last sentence at that tap.

import { locale } from "./i18n";

const KEY = "ludotheque.speech";
// A child's pace: a little slower than a grown-up's reading aloud.
const RATE = 0.85;
// A sentence that never says it ended (some engines lose the event) is over after this.
const MS_PER_CHARACTER = 110;
const MS_MARGIN = 1500;

const listeners = new Set<() => void>();
let waiting: Promise<void> = Promise.resolve();
let refused: string | undefined;

export function speechOn(): boolean {
  return localStorage.getItem(KEY) !== "off";
}

export function setSpeech(on: boolean): void {
  localStorage.setItem(KEY, on ? "on" : "off");
  if (!on) silence();
  for (const listener of listeners) listener();
}

/** Calls `listener` when the switch changes (the button shows it). */
export function onSpeechChange(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

function synthesis(): SpeechSynthesis | undefined {
  return typeof speechSynthesis === "undefined" || typeof SpeechSynthesisUtterance === "undefined" ? undefined : speechSynthesis;
}

/** Stops speaking and drops what waits to be said. */
export function silence(): void {
  synthesis()?.cancel();
  waiting = Promise.resolve();
}

/** Says `text` after what is being said (`now`: instead of it). Resolves once said (or
 * at once when speech is off or the browser has none). */
export function say(text: string, options: { now?: boolean } = {}): Promise<void> {
  const voice = synthesis();
  const words = text.trim();
  if (voice === undefined || !speechOn() || words === "") return Promise.resolve();
  if (options.now) silence();
  const utterance = new SpeechSynthesisUtterance(words);
  utterance.lang = locale();
  utterance.rate = RATE;
  const fitting = voice.getVoices().find((one) => one.lang.toLowerCase().startsWith(locale()));
  if (fitting) utterance.voice = fitting;
  const said = new Promise<void>((resolve) => {
    const cap = window.setTimeout(resolve, words.length * MS_PER_CHARACTER + MS_MARGIN);
    const done = (): void => {
      window.clearTimeout(cap);
      resolve();
    };
    utterance.addEventListener("end", done);
    utterance.addEventListener("error", (event) => {
      if (event.error === "not-allowed") refused = words;
      done();
    });
  });
  voice.speak(utterance);
  waiting = Promise.all([waiting, said]).then(() => undefined);
  return said;
}

/** Resolves once everything asked so far was said. */
export function quiet(): Promise<void> {
  return waiting;
}

// A page opened by a link may not speak before a tap: the first tap says the last
// sentence it refused.
document.addEventListener(
  "pointerdown",
  () => {
    if (refused !== undefined) void say(refused);
    refused = undefined;
  },
  { capture: true },
);
