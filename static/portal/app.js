// Developer portal (decision 0030): sign-in by OIDC authorization code + PKCE (S256), then
// the key, usage and reference views. No framework, no build step. The API checks the ID
// token's signature; this page only reads its claims for display and checks state and nonce.
"use strict";

(() => {
  const $ = (id) => document.getElementById(id);
  const SESSION = "portal.session";
  const PENDING = "portal.pending";
  const SECTIONS = ["keys", "usage", "reference"];
  let config = null;
  let session = null; // {idToken, email, exp}
  let referenceLoaded = false;

  // ---- helpers -------------------------------------------------------------------------
  function b64url(bytes) {
    let text = "";
    bytes.forEach((b) => { text += String.fromCharCode(b); });
    return btoa(text).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
  }
  function randomString(size) {
    const bytes = new Uint8Array(size);
    crypto.getRandomValues(bytes);
    return b64url(bytes);
  }
  async function s256(text) {
    const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
    return b64url(new Uint8Array(digest));
  }
  function claimsOf(token) {
    const part = token.split(".")[1].replace(/-/g, "+").replace(/_/g, "/");
    const json = decodeURIComponent(Array.from(atob(part), (c) =>
      "%" + c.charCodeAt(0).toString(16).padStart(2, "0")).join(""));
    return JSON.parse(json);
  }
  function say(message, isError) {
    const status = $("status");
    status.textContent = message || "";
    status.className = isError ? "error" : "";
  }
  function when(value) {
    if (!value) return "—";
    const date = new Date(value);
    return date.toISOString().slice(0, 16).replace("T", " ") + " UTC";
  }
  function el(tag, attrs, ...children) {
    const node = document.createElement(tag);
    Object.entries(attrs || {}).forEach(([name, value]) => {
      if (name === "text") node.textContent = value;
      else if (name === "onclick") node.addEventListener("click", value);
      else node.setAttribute(name, value);
    });
    children.forEach((child) => node.append(child));
    return node;
  }
  function redirectUri() {
    return config.redirect_uri || `${location.origin}/portal/`;
  }

  // ---- sign-in -------------------------------------------------------------------------
  async function signIn() {
    const pending = { verifier: randomString(32), state: randomString(16), nonce: randomString(16) };
    sessionStorage.setItem(PENDING, JSON.stringify(pending));
    const query = new URLSearchParams({
      response_type: "code",
      client_id: config.client_id,
      redirect_uri: redirectUri(),
      scope: config.scope,
      state: pending.state,
      nonce: pending.nonce,
      code_challenge: await s256(pending.verifier),
      code_challenge_method: "S256",
    });
    location.assign(`${config.authorization_endpoint}?${query}`);
  }

  async function finishSignIn(params) {
    const pending = JSON.parse(sessionStorage.getItem(PENDING) || "null");
    sessionStorage.removeItem(PENDING);
    history.replaceState(null, "", location.pathname + location.hash);
    if (params.get("error")) throw new Error(`Sign-in failed: ${params.get("error")}.`);
    if (!pending || params.get("state") !== pending.state) {
      throw new Error("Sign-in failed: the answer does not match this browser's request.");
    }
    const response = await fetch(config.token_endpoint, {
      method: "POST",
      headers: { "Content-Type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({
        grant_type: "authorization_code",
        code: params.get("code"),
        redirect_uri: redirectUri(),
        client_id: config.client_id,
        code_verifier: pending.verifier,
      }),
    });
    const answer = await response.json();
    if (!response.ok || !answer.id_token) {
      throw new Error(`Sign-in failed: ${answer.error_description || answer.error || response.status}.`);
    }
    const claims = claimsOf(answer.id_token);
    const audience = [].concat(claims.aud);
    if (claims.nonce !== pending.nonce || claims.iss !== config.issuer ||
        !audience.includes(config.client_id)) {
      throw new Error("Sign-in failed: the ID token is not for this page.");
    }
    session = { idToken: answer.id_token, email: claims.email || claims.sub, exp: claims.exp };
    sessionStorage.setItem(SESSION, JSON.stringify(session));
  }

  function signOut(message) {
    session = null;
    sessionStorage.removeItem(SESSION);
    // Nothing of a key stays on the page for the next person at this screen: the key shown
    // once, the key for "Try it out", and the reference's requests (their curl lines hold it).
    // Signing in again loads the page anew.
    $("try-key").value = "";
    $("new-key-value").textContent = "";
    $("copy-status").textContent = "";
    $("new-key").hidden = true;
    $("swagger").replaceChildren();
    render();
    say(message || "Signed out.");
  }

  async function api(path, options) {
    const response = await fetch(path, {
      ...options,
      headers: { Authorization: `Bearer ${session.idToken}`,
        ...(options && options.body ? { "Content-Type": "application/json" } : {}) },
    });
    if (response.status === 401) {
      signOut("Your sign-in has expired: sign in again.");
      throw new Error("Your sign-in has expired: sign in again.");
    }
    const body = response.status === 204 ? null : await response.json();
    if (!response.ok) throw new Error(body && body.detail ? body.detail : `HTTP ${response.status}`);
    return body;
  }

  // ---- keys ----------------------------------------------------------------------------
  function showNewKey(key) {
    $("new-key-value").textContent = key;
    $("copy-status").textContent = "";
    $("new-key").hidden = false;
    $("new-key").focus();
    $("try-key").value = key; // for "Try it out"; never stored
  }

  async function loadKeys() {
    const listing = await api("/v1/portal/keys");
    const rows = listing.data.map((key) => {
      const actions = el("td", { class: "actions" });
      if (key.status === "active") {
        actions.append(
          el("button", { type: "button", class: "secondary small", text: "Rotate",
            "aria-label": `Rotate key ${key.name}`, onclick: () => rotateKey(key) }),
          el("button", { type: "button", class: "danger small", text: "Revoke",
            "aria-label": `Revoke key ${key.name}`, onclick: () => revokeKey(key) }));
      }
      return el("tr", { "data-key-id": key.id },
        el("td", { text: key.name }),
        el("td", {}, el("code", { text: key.masked })),
        el("td", { class: `status-${key.status}`, text: key.status }),
        el("td", { text: when(key.created_at) }),
        el("td", { text: when(key.last_used_at) }),
        el("td", { text: when(key.expires_at) }),
        actions);
    });
    if (!rows.length) rows.push(el("tr", {}, el("td", { colspan: "7", text: "No keys yet." })));
    $("key-rows").replaceChildren(...rows);
  }

  async function createKey(event) {
    event.preventDefault();
    const expiry = $("key-expiry").value;
    const body = { name: $("key-name").value.trim() };
    if (expiry) body.expires_in_days = Number(expiry);
    const created = await api("/v1/portal/keys", { method: "POST", body: JSON.stringify(body) });
    $("create-form").reset();
    showNewKey(created.data.key);
    say(`Created key “${created.data.name}”.`);
    await loadKeys();
  }

  function confirmDialog(title, text, okLabel, withGrace) {
    const dialog = $("confirm");
    $("confirm-title").textContent = title;
    $("confirm-text").textContent = text;
    $("confirm-ok").textContent = okLabel;
    $("grace-field").hidden = !withGrace;
    return new Promise((resolve) => {
      const done = (ok) => {
        $("confirm-ok").removeEventListener("click", yes);
        $("confirm-cancel").removeEventListener("click", no);
        dialog.removeEventListener("cancel", no);
        dialog.close();
        resolve(ok);
      };
      const yes = () => done(true);
      const no = () => done(false);
      $("confirm-ok").addEventListener("click", yes);
      $("confirm-cancel").addEventListener("click", no);
      dialog.addEventListener("cancel", no);
      dialog.showModal();
      $("confirm-cancel").focus();
    });
  }

  async function revokeKey(key) {
    const ok = await confirmDialog("Revoke this key?",
      `Calls with “${key.name}” (${key.masked}) stop working at once. This cannot be undone.`,
      "Revoke", false);
    if (!ok) return;
    await api(`/v1/portal/keys/${key.id}`, { method: "DELETE" });
    say(`Revoked key “${key.name}”.`);
    await loadKeys();
  }

  async function rotateKey(key) {
    const ok = await confirmDialog("Rotate this key?",
      `A new key replaces “${key.name}” (${key.masked}); the old one stops working after the grace period.`,
      "Rotate", true);
    if (!ok) return;
    const body = JSON.stringify({ grace_hours: Number($("grace").value) });
    const rotated = await api(`/v1/portal/keys/${key.id}/rotate`, { method: "POST", body });
    showNewKey(rotated.data.key);
    say(`Rotated key “${key.name}”: store the new key now.`);
    await loadKeys();
  }

  async function copyKey() {
    try {
      await navigator.clipboard.writeText($("new-key-value").textContent);
      $("copy-status").textContent = "Copied.";
    } catch (error) {
      const range = document.createRange();
      range.selectNodeContents($("new-key-value"));
      getSelection().removeAllRanges();
      getSelection().addRange(range);
      $("copy-status").textContent = "Selected: press Ctrl+C (⌘C) to copy.";
    }
  }

  // ---- usage ---------------------------------------------------------------------------
  const SVG = "http://www.w3.org/2000/svg";
  function svg(tag, attrs, text) {
    const node = document.createElementNS(SVG, tag);
    Object.entries(attrs).forEach(([name, value]) => node.setAttribute(name, value));
    if (text !== undefined) node.textContent = text;
    return node;
  }

  function chart(days) {
    const width = 640, height = 200, left = 36, bottom = 20, top = 10;
    const max = Math.max(1, ...days.map((d) => d.requests));
    const step = (width - left) / days.length;
    const total = days.reduce((sum, d) => sum + d.requests, 0);
    const root = svg("svg", { viewBox: `0 0 ${width} ${height}`, role: "img",
      "aria-labelledby": "chart-title" });
    root.append(svg("title", { id: "chart-title" },
      `Requests per day: ${total} in ${days.length} days, at most ${max} in a day.`));
    const scale = (value) => (height - bottom - top) * value / max;
    root.append(svg("line", { class: "axis", x1: left, y1: height - bottom, x2: width, y2: height - bottom }));
    root.append(svg("text", { x: left - 4, y: top + 8, "text-anchor": "end" }, String(max)));
    root.append(svg("text", { x: left - 4, y: height - bottom, "text-anchor": "end" }, "0"));
    days.forEach((day, i) => {
      const h = scale(day.requests);
      const bar = svg("rect", { class: "bar", x: left + i * step + 1, y: height - bottom - h,
        width: Math.max(1, step - 2), height: h });
      bar.append(svg("title", {}, `${day.day}: ${day.requests} requests, ${day.cost}`));
      root.append(bar);
      if (i === 0 || i === days.length - 1 || (i + 1) % 7 === 0) {
        root.append(svg("text", { x: left + i * step + step / 2, y: height - 4,
          "text-anchor": "middle" }, day.day.slice(8)));
      }
    });
    return root;
  }

  async function loadUsage() {
    const month = $("period").value;
    const usage = await api(`/v1/portal/usage?month=${encodeURIComponent(month)}`);
    $("usage-total").textContent =
      `${usage.total.requests} requests, ${usage.total.cost} (${usage.currency}) from ${usage.from} to ${usage.to}`;
    $("chart").replaceChildren(chart(usage.days));
    const rows = usage.operations.map((line) => el("tr", {},
      el("td", { text: line.operation }),
      el("td", { class: "num", text: String(line.requests) }),
      el("td", { class: "num", text: String(line.unbilled_requests) }),
      el("td", { class: "num", text: line.cost })));
    if (!rows.length) rows.push(el("tr", {}, el("td", { colspan: "4", text: "No metered requests in this period." })));
    rows.push(el("tr", {}, el("th", { scope: "row", text: "Total" }),
      el("td", { class: "num", text: String(usage.total.requests) }),
      el("td", { class: "num", text: String(usage.total.unbilled_requests) }),
      el("td", { class: "num", text: usage.total.cost })));
    $("usage-rows").replaceChildren(...rows);
  }

  // ---- API reference -------------------------------------------------------------------
  function loadReference() {
    if (referenceLoaded) return;
    referenceLoaded = true;
    const link = el("link", { rel: "stylesheet", href: "/portal/vendor/swagger-ui-dist/swagger-ui.css" });
    document.head.append(link);
    const script = el("script", { src: "/portal/vendor/swagger-ui-dist/swagger-ui-bundle.js" });
    script.addEventListener("load", () => {
      window.SwaggerUIBundle({
        url: "/openapi.json",
        domNode: $("swagger"),
        presets: [window.SwaggerUIBundle.presets.apis],
        layout: "BaseLayout",
        validatorUrl: null, // no request to the public validator
        deepLinking: false,
        tryItOutEnabled: false,
        requestInterceptor: (request) => {
          const key = $("try-key").value.trim();
          const url = new URL(request.url, location.href);
          if (key && url.origin === location.origin && url.pathname.startsWith("/v1/") &&
              !url.pathname.startsWith("/v1/portal/")) {
            request.headers.Authorization = `Bearer ${key}`;
          }
          return request;
        },
      });
    });
    document.head.append(script);
  }

  // ---- views ---------------------------------------------------------------------------
  function currentSection() {
    const wanted = location.hash.slice(1);
    return SECTIONS.includes(wanted) ? wanted : "keys";
  }

  function run(task) {
    task().catch((error) => say(error.message, true));
  }

  function render() {
    const signedIn = session !== null;
    $("signin").hidden = signedIn;
    $("nav").hidden = !signedIn;
    $("sign-out").hidden = !signedIn;
    $("who").textContent = signedIn ? `Signed in as ${session.email}` : "";
    const current = signedIn ? currentSection() : null;
    SECTIONS.forEach((name) => {
      $(name).hidden = name !== current;
      const link = $(`nav-${name}`);
      if (name === current) link.setAttribute("aria-current", "page");
      else link.removeAttribute("aria-current");
    });
    if (current === "keys") run(loadKeys);
    if (current === "usage") run(loadUsage);
    if (current === "reference") loadReference();
  }

  async function start() {
    const today = new Date();
    $("period").value = today.toISOString().slice(0, 7);
    $("sign-in").addEventListener("click", () => run(signIn));
    $("sign-out").addEventListener("click", () => signOut());
    $("create-form").addEventListener("submit", (event) => run(() => createKey(event)));
    $("period-form").addEventListener("submit", (event) => { event.preventDefault(); run(loadUsage); });
    $("copy-key").addEventListener("click", () => run(copyKey));
    window.addEventListener("hashchange", () => { say(""); render(); });
    config = await (await fetch("/portal/config.json")).json();
    $("sign-in").disabled = false; // signing in needs the identity provider's settings
    const params = new URLSearchParams(location.search);
    if (params.has("code") || params.has("error")) await finishSignIn(params);
    session = JSON.parse(sessionStorage.getItem(SESSION) || "null");
    if (session && session.exp * 1000 < Date.now()) signOut("Your sign-in has expired: sign in again.");
    render();
  }

  run(start);
})();
