// A studio table on the live page (dealing = "studio"): the studio's video above the felt, and
// what the table says while the dealer deals. The cards themselves come in the table messages,
// street by street, as for any live table.

import { h } from "./dom.js";
import { t } from "./i18n.js";

/** "Cards dealt by the studio", in the page's language (read when the page is drawn). */
export function studioNote() {
  return t("studio.note");
}
const VIDEO_FILE = /\.(m3u8|mp4|webm|ogv|ogg|mov)([?#]|$)/i;
const STREETS = { hole: "studio.dealing.hole", flop: "studio.dealing.flop", turn: "studio.dealing.turn", river: "studio.dealing.river" };

/**
 * The studio's stream for `config.video_url`, or null (no stream, or one this browser cannot
 * play: the page is then the plain table). A video file or HLS playlist plays in a muted
 * <video>; any other address is an embeddable player page (WebRTC players are) in an <iframe>.
 * A video that fails later hides itself, and the table stays as it is.
 */
export function studioVideo(config) {
  const url = config.video_url;
  if (!url) return null;
  const box = h("div.live__video", { id: "studio-video", dataset: { state: "loading" } });
  if (!VIDEO_FILE.test(url)) {
    box.append(h("iframe", { src: url, title: t("studio.video"), allow: "autoplay; fullscreen" }));
    box.dataset.state = "embedded";
    return box;
  }
  const video = h("video", { src: url, autoplay: true, playsinline: true, "aria-label": t("studio.video") });
  video.muted = true; // browsers play muted video without a click
  if (/\.m3u8([?#]|$)/i.test(url) && !video.canPlayType("application/vnd.apple.mpegurl")) return null;
  video.addEventListener("playing", () => { box.dataset.state = "playing"; });
  video.addEventListener("error", () => {
    box.dataset.state = "failed";
    box.hidden = true;
  });
  box.append(video);
  return box;
}

/** "Dealing the flop" while the studio's dealer deals a street. */
export function dealingTitle(state) {
  const street = state.expect?.street;
  if (!street) return t("live.phase.dealing");
  return STREETS[street] ? t(STREETS[street]) : `${t("live.phase.dealing")} ${street}`;
}
