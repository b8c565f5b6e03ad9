// Dashboard behaviour that needs script: passkey ceremonies (WebAuthn),
// times in the viewer's own time zone, and live pages (server-sent events
// that say what changed; the page then reads itself again and swaps its
// live regions). Every page works without it except passkeys themselves:
// times then read in UTC, and a reload shows what changed.
(function () {
  'use strict';

  function csrf() {
    var m = document.querySelector('meta[name="csrf-token"]');
    return m ? m.content : '';
  }
  function b64urlToBuf(s) {
    s = s.replace(/-/g, '+').replace(/_/g, '/');
    while (s.length % 4) s += '=';
    var bin = atob(s), out = new Uint8Array(bin.length);
    for (var i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
    return out.buffer;
  }
  function bufToB64url(buf) {
    var bytes = new Uint8Array(buf), bin = '';
    for (var i = 0; i < bytes.length; i++) bin += String.fromCharCode(bytes[i]);
    return btoa(bin).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
  }
  function post(url, body) {
    return fetch(url, {
      method: 'POST', credentials: 'same-origin',
      headers: { 'Content-Type': 'application/json', 'X-CSRF-Token': csrf() },
      body: JSON.stringify(body || {})
    }).then(function (r) {
      return r.json().catch(function () { return {}; }).then(function (j) {
        if (!r.ok) throw new Error(j.message || ('request failed (' + r.status + ')'));
        return j;
      });
    });
  }
  function creationOptions(o) {
    var pk = o.publicKey;
    pk.challenge = b64urlToBuf(pk.challenge);
    pk.user.id = b64urlToBuf(pk.user.id);
    (pk.excludeCredentials || []).forEach(function (c) { c.id = b64urlToBuf(c.id); });
    return { publicKey: pk };
  }
  function requestOptions(o) {
    var pk = o.publicKey;
    pk.challenge = b64urlToBuf(pk.challenge);
    (pk.allowCredentials || []).forEach(function (c) { c.id = b64urlToBuf(c.id); });
    return { publicKey: pk };
  }
  function serialize(cred) {
    var r = cred.response, out = {
      id: cred.id, rawId: bufToB64url(cred.rawId), type: cred.type,
      clientExtensionResults: cred.getClientExtensionResults ? cred.getClientExtensionResults() : {},
      response: { clientDataJSON: bufToB64url(r.clientDataJSON) }
    };
    if (cred.authenticatorAttachment) out.authenticatorAttachment = cred.authenticatorAttachment;
    if (r.attestationObject) {
      out.response.attestationObject = bufToB64url(r.attestationObject);
      if (r.getTransports) out.response.transports = r.getTransports();
    } else {
      out.response.authenticatorData = bufToB64url(r.authenticatorData);
      out.response.signature = bufToB64url(r.signature);
      if (r.userHandle) out.response.userHandle = bufToB64url(r.userHandle);
    }
    return out;
  }
  function showError(btn, msg) {
    var box = document.getElementById(btn.getAttribute('data-error') || 'passkey-error');
    if (box) { box.textContent = msg; box.hidden = false; box.focus(); } else { alert(msg); }
  }

  function run(btn) {
    if (!window.PublicKeyCredential) { showError(btn, 'This browser does not support passkeys.'); return; }
    var kind = btn.getAttribute('data-passkey');
    var base = btn.getAttribute('data-endpoint');
    btn.disabled = true;
    var extra = {};
    if (kind === 'register') {
      var nameField = document.getElementById(btn.getAttribute('data-name-field'));
      extra.name = nameField ? nameField.value : '';
      if (!extra.name.trim()) { btn.disabled = false; showError(btn, 'Give the passkey a name first.'); if (nameField) nameField.focus(); return; }
    }
    // data-next: where a passwordless sign-in returns to (the /link review).
    var next = btn.getAttribute('data-next');
    post(base + '/options', next ? { next: next } : {}).then(function (opts) {
      return kind === 'register'
        ? navigator.credentials.create(creationOptions(opts))
        : navigator.credentials.get(requestOptions(opts));
    }).then(function (cred) {
      extra.credential = serialize(cred);
      return post(base, extra);
    }).then(function (res) {
      window.location.assign(res.redirect || '/');
    }).catch(function (e) {
      btn.disabled = false;
      showError(btn, e && e.name === 'NotAllowedError' ? 'The passkey prompt was closed or timed out.' : (e.message || String(e)));
    });
  }

  document.addEventListener('click', function (ev) {
    var btn = ev.target.closest && ev.target.closest('[data-passkey]');
    if (btn) { ev.preventDefault(); run(btn); }
  });

  // ---- times in the viewer's time zone (UTC stays on hover) ----

  var fmt = {
    datetime: { year: 'numeric', month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit' },
    time: { hour: '2-digit', minute: '2-digit', second: '2-digit' },
    seconds: { year: 'numeric', month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit', second: '2-digit' },
    date: { year: 'numeric', month: 'short', day: 'numeric' }
  };
  function localTimes(root) {
    var nodes = (root || document).querySelectorAll('time[data-local]');
    for (var i = 0; i < nodes.length; i++) {
      var el = nodes[i], kind = el.getAttribute('data-local'), d = new Date(el.getAttribute('datetime'));
      if (isNaN(d.getTime()) || !fmt[kind]) continue; // "ago" keeps its words
      try {
        el.textContent = new Intl.DateTimeFormat(undefined, fmt[kind]).format(d);
      } catch (e) { /* an old browser keeps the UTC text */ }
    }
  }

  // ---- live pages ----

  function setState(state, text) {
    var box = document.getElementById('live-status'), label = document.getElementById('live-state');
    if (!box) return;
    box.setAttribute('data-state', state);
    if (label) label.textContent = text;
  }

  var refreshing = false, again = false;
  // refresh reads the page again and swaps each live region that changed,
  // except one the user is working in (focus inside it). quiet: do not
  // highlight what changed (the read on connecting, which only catches up).
  function refresh(quiet) {
    if (refreshing) { again = true; return; }
    refreshing = true;
    fetch(window.location.href, { credentials: 'same-origin', headers: { 'X-Live-Refresh': '1' } }).then(function (r) {
      if (r.redirected && new URL(r.url).pathname === '/signin') { setState('signed-out', 'Signed out — reload to sign in'); throw null; }
      if (!r.ok) throw new Error('HTTP ' + r.status);
      return r.text();
    }).then(function (html) {
      var doc = new DOMParser().parseFromString(html, 'text/html');
      var regions = document.querySelectorAll('[data-live-region][id]');
      for (var i = 0; i < regions.length; i++) {
        var old = regions[i], fresh = doc.getElementById(old.id);
        if (!fresh) continue;
        // Compare as shown: the page's times are already local.
        localTimes(fresh);
        if (fresh.innerHTML === old.innerHTML) continue;
        if (old.contains(document.activeElement) && document.activeElement !== document.body) continue;
        var node = document.importNode(fresh, true);
        old.replaceWith(node);
        if (!quiet) node.classList.add('refreshed');
      }
      var stamp = doc.getElementById('live-updated'), here = document.getElementById('live-updated');
      if (stamp && here) { here.replaceWith(document.importNode(stamp, true)); localTimes(document.getElementById('live-status')); }
      var bell = doc.getElementById('nav-notifications'), myBell = document.getElementById('nav-notifications');
      if (bell && myBell && bell.innerHTML !== myBell.innerHTML) myBell.innerHTML = bell.innerHTML;
    }).catch(function (e) {
      if (e) setState('reconnecting', 'Could not refresh — retrying');
    }).then(function () {
      refreshing = false;
      if (again) { again = false; refresh(); }
    });
  }

  function live() {
    var main = document.getElementById('main');
    var topics = main && main.getAttribute('data-live');
    if (!topics || !window.EventSource) return;
    var timer = null;
    var es = new EventSource('/live?topics=' + encodeURIComponent(topics));
    // Once subscribed, read the page once: what changed between the page's
    // own read and the subscription would otherwise wait for the next
    // change. (A reconnect is a new subscription: the same.)
    es.addEventListener('ready', function () { setState('live', 'Live · updated'); refresh(true); });
    es.addEventListener('change', function () {
      // Changes come in bursts (an order, its fill and its position): one
      // read for the burst.
      clearTimeout(timer);
      timer = setTimeout(function () { refresh(false); }, 150);
    });
    es.onerror = function () {
      if (es.readyState === EventSource.CLOSED) { setState('', 'Updated'); return; }
      setState('reconnecting', 'Reconnecting · updated');
    };
    window.addEventListener('pagehide', function () { es.close(); });
  }

  function start() {
    localTimes(document);
    live();
  }
  if (document.readyState === 'loading') {
    document.addEventListener('DOMContentLoaded', start);
  } else {
    start();
  }
})();
