// Small sounds made in the page with the Web Audio API (no sound file is fetched): a
// chime when it is your turn, a little tune for a round won, a fanfare for a game won,
// and two soft low notes for a game lost. A switch turns them off, remembered in this
// browser. Browsers start sound only after a tap or a key: the first one unlocks it.
//
// Every sound asked for is also told to the page (a "ludotheque:sound" event, with
// `muted`), so a test can hear it without speakers.

export type Sound = "turn" | "round" | "won" | "lost";

const KEY = "ludotheque.sound";
// The notes of each sound: [frequency in Hz, start in s, length in s].
const TUNES: Record<Sound, [number, number, number][]> = {
  turn: [
    [659, 0, 0.16],
    [988, 0.13, 0.28],
  ],
  round: [
    [523, 0, 0.14],
    [659, 0.12, 0.14],
    [784, 0.24, 0.3],
  ],
  won: [
    [523, 0, 0.14],
    [659, 0.13, 0.14],
    [784, 0.26, 0.14],
    [1047, 0.4, 0.5],
  ],
  lost: [
    [392, 0, 0.3],
    [330, 0.28, 0.5],
  ],
};

let context: AudioContext | undefined;
const listeners = new Set<() => void>();

export function soundOn(): boolean {
  return localStorage.getItem(KEY) !== "off";
}

export function setSound(on: boolean): void {
  localStorage.setItem(KEY, on ? "on" : "off");
  for (const listener of listeners) listener();
}

/** Calls `listener` when the switch changes (the button shows it). */
export function onSoundChange(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

function audio(): AudioContext | undefined {
  if (context === undefined && typeof AudioContext !== "undefined") context = new AudioContext();
  return context;
}

// The first tap or key lets the page make sounds.
for (const type of ["pointerdown", "keydown"] as const) {
  document.addEventListener(type, () => void audio()?.resume().catch(() => undefined), { once: true, capture: true });
}

export function play(sound: Sound): void {
  const muted = !soundOn();
  document.dispatchEvent(new CustomEvent("ludotheque:sound", { detail: { sound, muted } }));
  if (muted) return;
  const ctx = audio();
  if (ctx === undefined || ctx.state !== "running") return;
  const start = ctx.currentTime + 0.02;
  for (const [frequency, at, length] of TUNES[sound]) {
    const tone = ctx.createOscillator();
    const volume = ctx.createGain();
    tone.type = sound === "lost" ? "sine" : "triangle";
    tone.frequency.value = frequency;
    volume.gain.setValueAtTime(0.0001, start + at);
    volume.gain.exponentialRampToValueAtTime(0.18, start + at + 0.02);
    volume.gain.exponentialRampToValueAtTime(0.0001, start + at + length);
    tone.connect(volume).connect(ctx.destination);
    tone.start(start + at);
    tone.stop(start + at + length + 0.05);
  }
}
