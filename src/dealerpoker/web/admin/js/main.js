// The back office's shell: sign-in, the replacement of a one-time password, the navigation
// between the pages (one module each, chosen by the address's #hash) and the language switch.

import { h } from "/js/dom.js";
import { LANGUAGES, preferredLanguage, t, useLanguage } from "/js/i18n.js";
import { useCurrencies } from "./format.js";
import { AdminError, get, post, request, setCsrf } from "./http.js";
import { PAGES } from "./pages.js";
import { can, errorText, session } from "./state.js";

const LANGUAGE_KEY = "dealerpoker.admin.language";
const LANGUAGE_NAMES = {
  en: "admin.language.en", de: "admin.language.de", es: "admin.language.es", sv: "admin.language.sv", fr: "admin.language.fr",
  da: "admin.language.da",
};
// the back office's texts are in these catalogues (the players' pages may offer more languages)
const ADMIN_LANGUAGES = LANGUAGES.filter((code) => code in LANGUAGE_NAMES);
const ROLE_NAMES = { admin: "admin.role.admin", support: "admin.role.support", auditor: "admin.role.auditor" };
const app = document.getElementById("app");

/** The server's answer about who is signed in: the member, the CSRF token, the currencies' formats. */
function signedIn(me) {
  session.me = me;
  setCsrf(me.csrf);
  useCurrencies(me.currencies);
}

function field(label, input) {
  return h("label.field", {}, h("span", {}, label), input);
}

function signInForm() {
  const name = h("input", { name: "name", autocomplete: "username", required: true });
  const password = h("input", { name: "password", type: "password", autocomplete: "current-password", required: true });
  const code = h("input", { name: "code", inputmode: "numeric", autocomplete: "one-time-code" });
  const message = h("p.message", { role: "alert" });
  const form = h("form.card.sign-in", {
    onsubmit: async (event) => {
      event.preventDefault();
      message.textContent = "";
      try {
        signedIn(await post("/session", { name: name.value, password: password.value, code: code.value || null }));
        route();
      } catch (error) {
        message.textContent = errorText(error);
      }
    },
  }, h("h1", {}, t("admin.title")),
  field(t("admin.sign_in.name"), name), field(t("admin.sign_in.password"), password),
  field(t("admin.sign_in.code"), code),
  h("button.btn", { type: "submit" }, t("admin.sign_in.submit")), message, languageSwitch());
  return form;
}

function passwordForm() {
  const current = h("input", { name: "current", type: "password", autocomplete: "current-password", required: true });
  const fresh = h("input", { name: "new", type: "password", autocomplete: "new-password", required: true, minlength: 12 });
  const message = h("p.message", { role: "alert" });
  return h("form.card.password", {
    onsubmit: async (event) => {
      event.preventDefault();
      try {
        await post("/password", { current: current.value, new: fresh.value });
        signedIn(await get("/session"));
        route();
      } catch (error) {
        message.textContent = errorText(error);
      }
    },
  }, h("h1", {}, t("admin.password.title")), h("p", {}, t("admin.password.explain")),
  field(t("admin.password.current"), current), field(t("admin.password.new"), fresh),
  h("button.btn", { type: "submit" }, t("admin.password.submit")), message);
}

function languageSwitch() {
  const select = h("select.language", {
    "aria-label": t("admin.language"),
    onchange: async () => {
      localStorage.setItem(LANGUAGE_KEY, select.value);
      await useLanguage(select.value);
      route();
    },
  }, ...ADMIN_LANGUAGES.map((code) => h("option", { value: code }, t(LANGUAGE_NAMES[code]))));
  select.value = ADMIN_LANGUAGES.includes(document.documentElement.lang) ? document.documentElement.lang : "en";
  return select;
}

function header(active) {
  const visible = Object.entries(PAGES).filter(([, page]) => !page.hidden && can(page.permission));
  return h("header.bar", {},
    h("strong.brand", {}, t("admin.title")),
    h("nav", {}, ...visible.map(([name]) => [name, name === active || `${active}s` === name]).map(([name, on]) =>
      h(`a${on ? ".active" : ""}`, { href: `#${name}` }, t(PAGES[name].title)))),
    h("span.who", {}, t("admin.signed_in_as", { name: session.me.name, role: t(ROLE_NAMES[session.me.role]) })),
    languageSwitch(),
    h("button.btn.small", {
      type: "button",
      onclick: async () => {
        await request("DELETE", "/session");
        session.me = null;
        setCsrf(null);
        route();
      },
    }, t("admin.sign_out")));
}

async function route() {
  app.replaceChildren();
  if (!session.me) {
    app.append(signInForm());
    return;
  }
  if (session.me.must_change_password) {
    app.append(passwordForm());
    return;
  }
  const [name, ...rest] = decodeURIComponent(location.hash.slice(1)).split("/");
  const allowed = Object.keys(PAGES).filter((page) => !PAGES[page].hidden && can(PAGES[page].permission));
  const chosen = PAGES[name] && can(PAGES[name].permission) ? name : allowed[0];
  const body = h("section.page", { id: `page-${chosen}` });
  app.append(header(chosen), body);
  try {
    await PAGES[chosen].render(body, rest.join("/"));
  } catch (error) {
    body.append(h("p.message", { role: "alert" }, errorText(error)));
  }
}

async function start() {
  const preferred = preferredLanguage(LANGUAGE_KEY);
  await useLanguage(ADMIN_LANGUAGES.includes(preferred) ? preferred : "en");
  try {
    signedIn(await get("/session"));
  } catch {
    session.me = null;
  }
  window.addEventListener("hashchange", route);
  route();
}

start();
