// The felt fits the room the page (or a casino's iframe) leaves it: the table is one screen high,
// with the header, the status line (the timer) and the rail (chips, DEAL, the decisions) always
// shown; the felt between them is zoomed (CSS zoom: its layout, boxes and clicks follow) so that
// nothing a player must press is ever below the fold, from a 640x360 frame to a 1920x1080 screen.

const MAX_ZOOM = 1.3; // on a big screen the cards grow, up to this much
const MIN_ZOOM = 0.4;

/** Keeps `felt` (inside `box`) zoomed to fit `box`; call the returned function after a redraw. */
export function fitFelt(box, felt) {
  let fitted = null; // what the last fit left: the room, and the felt's size at its zoom
  const seen = (height, width) => ({
    height, width, felt: felt.getBoundingClientRect().height, wide: felt.scrollWidth,
  });
  const fit = () => {
    // Beside the felt: a studio table's video (its own share of the height).
    const others = [...box.children].filter((child) => child !== felt)
      .reduce((total, child) => total + child.getBoundingClientRect().height, 0);
    const height = box.clientHeight - others;
    const width = box.clientWidth;
    if (!height || !width) return;
    // The same room and the felt the same size at its zoom as the last fit left them (a card
    // turned, a chip added): the zoom stands. Trying the zooms again on every redraw lays the felt
    // out a dozen times and repaints all of it.
    const now = seen(height, width);
    if (fitted && ["height", "width", "felt", "wide"].every((key) => fitted[key] === now[key])) return;
    fitted = null; // until this fit ends (one that gives up leaves the next to try again)
    const heightAt = (zoom) => {
      felt.style.zoom = String(zoom);
      return felt.getBoundingClientRect().height;
    };
    // Zoomed, the felt's layout width changes (it fills the box), so its words wrap differently and
    // its height is not quite proportional: a few rounds, keeping the largest zoom that fits.
    let zoom = 1;
    let best = MIN_ZOOM;
    for (let round = 0; round < 6; round += 1) {
      const needed = heightAt(zoom);
      if (!needed) return;
      if (needed <= height + 0.5) best = Math.max(best, zoom);
      const next = Math.max(MIN_ZOOM, Math.min(MAX_ZOOM, Math.floor(zoom * (height / needed) * 1000) / 1000));
      if (Math.abs(next - zoom) < 0.004) break;
      zoom = next;
    }
    zoom = best;
    for (let round = 0; round < 6 && heightAt(zoom) > height + 0.5 && zoom > MIN_ZOOM; round += 1) {
      zoom = Math.max(MIN_ZOOM, Math.floor(zoom * 0.97 * 1000) / 1000);
    }
    // Nor wider than the box: the felt's grid has a least width (five cards in a row).
    for (let round = 0; round < 3 && felt.scrollWidth > felt.clientWidth + 0.5; round += 1) {
      zoom = Math.max(MIN_ZOOM, Math.floor(zoom * (felt.clientWidth / felt.scrollWidth) * 1000) / 1000);
      felt.style.zoom = String(zoom);
    }
    felt.dataset.zoom = String(zoom);
    fitted = seen(height, width);
  };
  new ResizeObserver(fit).observe(box); // after layout, before paint: the felt never shows unfitted
  document.fonts?.ready.then(fit);
  return fit;
}
