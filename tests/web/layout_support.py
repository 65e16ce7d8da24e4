"""The layout checks of the table pages, from the elements' boxes (getBoundingClientRect, scrollWidth;
never pixels): what a player must press is on screen without scrolling, no two controls overlap,
no text is cut or runs out of its box, and a button whose words are hidden (a phone's header)
shows an icon instead. Shared by the screen-size tests and the casino-iframe test."""

from __future__ import annotations

from typing import Any

from tests.support.browser import ARTIFACTS

# Desktop, laptop, small laptop, tablet, two phones upright, a phone on its side.
VIEWPORTS = [(1920, 1080), (1366, 768), (1280, 720), (768, 1024), (390, 844), (375, 667), (844, 390)]

PROBLEMS = """() => {
  const problems = [];
  const vw = window.innerWidth, vh = window.innerHeight;
  const shown = (el) => {
    const away = '[hidden], .panel, .minmax__pop, .spot__tip, .hint__tip, dialog:not([open])';
    if (el.closest(away)) return false;
    const style = getComputedStyle(el);
    if (style.visibility === 'hidden' || style.display === 'none') return false;
    const r = el.getBoundingClientRect();
    return r.width > 1 && r.height > 1; // (1 px: words kept for screen readers only)
  };
  const name = (el) => el.id ? `#${el.id}` : el.dataset.action ? `${el.dataset.action} button`
    : el.dataset.field ? `${el.dataset.field} field` : el.dataset.chip ? `chip ${el.dataset.chip}`
    : el.dataset.minmax ? `${el.dataset.minmax} min/max` : `${el.tagName.toLowerCase()}.${el.className}`;
  const box = (r) => `[${Math.round(r.left)},${Math.round(r.top)} `
    + `${Math.round(r.right)}x${Math.round(r.bottom)}]`;
  const onScreen = (r) => r.left >= -0.5 && r.top >= -0.5 && r.right <= vw + 0.5 && r.bottom <= vh + 0.5;

  // What a player must reach without scrolling: the timer, every decision, DEAL and the chips, the fields.
  const needed = '#countdown-ring, #controls button, #decisions button, #clear, #chip-tray .chip, '
    + '.spot[data-field]';
  for (const el of document.querySelectorAll(needed)) {
    const r = el.getBoundingClientRect();
    if (shown(el) && !onScreen(r)) problems.push(`${name(el)} off screen ${box(r)}`);
  }
  // No two controls overlap (one inside the other is a control's own part).
  const controls = [...document.querySelectorAll(
    '.stage button, .stage a[href], .stage select, .stage summary, .stage .minmax, .stage [role=timer]')]
    .filter((el) => shown(el) && !el.classList.contains('chip--stacked'));
  for (let i = 0; i < controls.length; i += 1) {
    for (let j = i + 1; j < controls.length; j += 1) {
      const [a, b] = [controls[i], controls[j]];
      if (a.contains(b) || b.contains(a)) continue;
      const [ra, rb] = [a.getBoundingClientRect(), b.getBoundingClientRect()];
      const x = Math.min(ra.right, rb.right) - Math.max(ra.left, rb.left);
      const y = Math.min(ra.bottom, rb.bottom) - Math.max(ra.top, rb.top);
      if (x > 1 && y > 1) problems.push(`${name(a)} ${box(ra)} overlaps ${name(b)} ${box(rb)}`);
    }
  }
  // No text cut or outside its box: each text's own lines against its element's box.
  for (const el of document.querySelectorAll('.stage *')) {
    const texts = [...el.childNodes].filter((n) => n.nodeType === 3 && n.textContent.trim());
    if (!texts.length || !shown(el)) continue;
    const style = getComputedStyle(el);
    if (parseFloat(style.fontSize) === 0) { // an icon button: its words are its accessible name
      const icon = getComputedStyle(el, '::before').content;
      if (!icon || icon === 'none' || icon === 'normal') {
        problems.push(`${name(el)} shows neither words nor an icon`);
      }
      continue;
    }
    if (el.clientWidth > 0 && el.scrollWidth > el.clientWidth + 1) {
      problems.push(`the text of ${name(el)} is cut: ${el.scrollWidth} px in ${el.clientWidth} px`
        + ` ("${el.textContent.trim()}")`);
      continue;
    }
    const outer = el.getBoundingClientRect();
    for (const text of texts) {
      const range = document.createRange();
      range.selectNodeContents(text);
      for (const line of range.getClientRects()) {
        if (!line.width) continue;
        if (line.left < outer.left - 1 || line.right > outer.right + 1
            || line.top < outer.top - 2 || line.bottom > outer.bottom + 2) {
          problems.push(`"${text.textContent.trim()}" runs out of ${name(el)} ${box(line)} > ${box(outer)}`);
        }
      }
    }
  }
  const page = document.scrollingElement;
  if (page.scrollWidth > vw + 0.5) problems.push(`the page is ${page.scrollWidth} px wide in ${vw}`);
  const felt = document.querySelector('.felt'), feltBox = document.querySelector('.felt-box');
  if (problems.length && felt && feltBox) {  // what the fit saw, to tell a problem's cause
    problems.push(`(the felt: zoom ${felt.dataset.zoom} ${box(felt.getBoundingClientRect())}`
      + ` in ${box(feltBox.getBoundingClientRect())})`);
  }
  return problems;
}"""

# From the top, once a whole frame has been drawn: the felt's fit (web/js/fit.js) runs in a
# ResizeObserver, after that frame's animation callbacks and layout; a task queued from the
# callback runs when the frame is done. One round trip to the page per look.
SETTLED_PROBLEMS = f"""async () => {{
  window.scrollTo(0, 0);
  await new Promise((done) => requestAnimationFrame(() => setTimeout(done)));
  return ({PROBLEMS})();
}}"""


def layout_problems(page: Any) -> list[str]:
    """The layout problems of the page (or frame) as it stands, seen from the top (no scrolling)."""
    problems: list[str] = page.evaluate(SETTLED_PROBLEMS)
    return problems


def problems_at_every_size(page: Any, shots: str, phase: str,
                           sizes: list[tuple[int, int]] = VIEWPORTS) -> list[str]:
    """The layout problems at each of ``sizes``, named by size and ``phase``; back to the first size.
    A size with problems is saved as test-artifacts/fit-{shots}-{phase}-{size}.png for a person."""
    found = []
    for width, height in sizes:
        page.set_viewport_size({"width": width, "height": height})
        problems = layout_problems(page)
        if problems and shots:
            ARTIFACTS.mkdir(exist_ok=True)
            name = f"fit-{shots}-{phase.replace(' ', '-')}-{width}x{height}.png"
            page.screenshot(path=str(ARTIFACTS / name))  # painted (tests/support/browser.py)
        found += [f"{phase} at {width}x{height}: {problem}" for problem in problems]
    page.set_viewport_size({"width": sizes[0][0], "height": sizes[0][1]})
    return found
