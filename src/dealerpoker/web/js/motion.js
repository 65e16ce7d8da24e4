// Chip movements and table sounds (solo and live): a chip flies from the tray to its field, the
// field's chips back to the player on a win and to the dealer on a loss. The sounds are made in
// the page (WebAudio oscillators: no downloaded assets) and are off until the player switches
// them on; the switch is remembered in localStorage. With prefers-reduced-motion nothing flies.

import { h } from "./dom.js";
import { t } from "./i18n.js";

const SOUND_KEY = "dealerpoker.sound";
const FLIGHT_MS = 420;
const STAGGER_MS = 60;
const MOST_CHIPS = 4; // a stack flies as its top chips
/** The longest a table step's animations take: a chip flight and its last chip's stagger (a card is dealt in 250 ms). */
export const STEP_MS = FLIGHT_MS + (MOST_CHIPS - 1) * STAGGER_MS;
// Each sound: [frequency Hz, start s, length s] notes of a short sine/triangle blip.
const SOUNDS = {
  chip: [[1900, 0, 0.05], [1400, 0.035, 0.05]],
  win: [[660, 0, 0.12], [880, 0.1, 0.12], [1320, 0.2, 0.2]],
  lose: [[330, 0, 0.16], [247, 0.14, 0.24]],
  deal: [[900, 0, 0.04]],
};

export function reducedMotion() {
  return window.matchMedia?.("(prefers-reduced-motion: reduce)").matches ?? false;
}

export function soundOn() {
  return localStorage.getItem(SOUND_KEY) === "on";
}

let audio = null;

/** Play one of SOUNDS (nothing while the sound is off, or where WebAudio is missing). */
export function play(kind) {
  if (!soundOn() || !SOUNDS[kind]) return false;
  const Context = window.AudioContext ?? window.webkitAudioContext;
  if (!Context) return false;
  audio ??= new Context();
  const now = audio.currentTime;
  for (const [frequency, start, length] of SOUNDS[kind]) {
    const oscillator = audio.createOscillator();
    const gain = audio.createGain();
    oscillator.type = kind === "chip" ? "triangle" : "sine";
    oscillator.frequency.value = frequency;
    gain.gain.setValueAtTime(0.0001, now + start);
    gain.gain.exponentialRampToValueAtTime(0.18, now + start + 0.01);
    gain.gain.exponentialRampToValueAtTime(0.0001, now + start + length);
    oscillator.connect(gain).connect(audio.destination);
    oscillator.start(now + start);
    oscillator.stop(now + start + length + 0.02);
  }
  window.dealerpokerSounds = (window.dealerpokerSounds ?? 0) + 1; // for the tests
  return true;
}

/** Turns the sound on or off (the casino's page may ask: js/embed.js), as the switch shows. */
export function setSound(on) {
  localStorage.setItem(SOUND_KEY, on ? "on" : "off");
  document.dispatchEvent(new CustomEvent("dealerpoker:sound"));
}

/** The HUD's sound switch: SOUND ON / SOUND OFF, remembered. */
export function soundSwitch() {
  const button = h("button.btn.btn--ghost", { type: "button", id: "sound-switch" });
  const show = () => {
    button.textContent = t(soundOn() ? "sound.on" : "sound.off");
    button.setAttribute("aria-pressed", String(soundOn()));
  };
  button.addEventListener("click", () => {
    localStorage.setItem(SOUND_KEY, soundOn() ? "off" : "on");
    show();
    play("chip");
  });
  document.addEventListener("dealerpoker:sound", show);
  show();
  return button;
}

/**
 * Chips flying from `from` to `to` (elements; `chips`: the chip elements to copy, drawn on the
 * way). Returns the number of chips sent flying (0 with reduced motion or without both ends).
 */
export function fly(from, to, chips, kind = "to-field") {
  if (!from || !to || reducedMotion() || !chips.length) return 0;
  const a = from.getBoundingClientRect();
  const b = to.getBoundingClientRect();
  if (!a.width || !b.width) return 0;
  const dx = b.left + b.width / 2 - (a.left + a.width / 2);
  const dy = b.top + b.height / 2 - (a.top + a.height / 2);
  chips.slice(-MOST_CHIPS).forEach((chip, index) => {
    const ghost = chip.cloneNode(true);
    ghost.classList.remove("is-selected", "chip--stacked");
    ghost.classList.add("chip--flying");
    ghost.dataset.flight = kind;
    ghost.setAttribute("aria-hidden", "true");
    ghost.style.left = `${a.left + a.width / 2 - 16}px`;
    ghost.style.top = `${a.top + a.height / 2 - 16}px`;
    document.body.append(ghost);
    const motion = ghost.animate([{ transform: "translate(0, 0)" }, { transform: `translate(${dx}px, ${dy}px)` }],
      { duration: FLIGHT_MS, delay: index * STAGGER_MS, easing: "cubic-bezier(.3,.7,.4,1)", fill: "forwards" });
    motion.finished.finally(() => ghost.remove());
  });
  return Math.min(MOST_CHIPS, chips.length);
}

/**
 * A settled round's chips: back to the player (`player`: the balance meter) on a win, to the dealer
 * on a loss; `chips` the ones to send (default: those on the felt now).
 */
export function settleFlight(felt, settlement, { player, dealer, chips = [...felt.querySelectorAll(".spot .stack .chip")] }) {
  if (!settlement) return;
  const net = settlement.net ?? 0;
  const source = felt.querySelector(".bets-row") ?? felt;
  if (net > 0) fly(source, player, chips, "to-player");
  else if (net < 0) fly(source, dealer, chips, "to-dealer");
  play(net > 0 ? "win" : net < 0 ? "lose" : "chip");
}
