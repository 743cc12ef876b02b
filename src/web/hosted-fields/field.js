/* Portcullis hosted payment field: one input inside a frame served by the gateway.
 *
 * Messages (all objects carry source "portcullis-hf" and the SDK instance id):
 *   merchant page (SDK) -> frame   init {token, field, placeholder, style}   accepted once, from window.parent;
 *                                   its origin becomes the only origin this frame ever talks back to
 *                                   collect {requestId}                       card frame only
 *   frame -> merchant page          ready | event {event, valid, empty} | result {requestId, data}
 *   card frame <-> sibling frames   value-request {nonce, token} / value {nonce, token, value, valid}
 *                                   exchanged with targetOrigin = this gateway's origin, so only the gateway's own
 *                                   frames can read them; the merchant's page never sees a card value.
 * The card frame gathers the three values and posts them to the gateway itself (same origin, header Token).
 * No inline code anywhere: this file is loaded by the frame page, which runs under a strict CSP. */
(function () {
  'use strict';

  var NS = 'portcullis-hf';
  var ORIGIN = window.location.origin;
  var TOKEN_SHAPE = /^[A-Za-z0-9_-]{16,64}$/;
  var field = document.body.getAttribute('data-field');
  var input = document.getElementById('field');
  var parentOrigin = null;
  var token = null;
  var instance = null;
  var pending = null;

  // --- card rules (the server applies the same ones in src/domain/card.ts) ----------------------------

  var BRANDS = [
    { brand: 'visa', prefixes: [[4, 4]], lengths: [13, 16, 19], cvv: 3 },
    { brand: 'mastercard', prefixes: [[51, 55], [2221, 2720]], lengths: [16], cvv: 3 },
    { brand: 'amex', prefixes: [[34, 34], [37, 37]], lengths: [15], cvv: 4 },
    { brand: 'discover', prefixes: [[6011, 6011], [644, 649], [65, 65]], lengths: [16, 17, 18, 19], cvv: 3 },
    { brand: 'jcb', prefixes: [[3528, 3589]], lengths: [16, 17, 18, 19], cvv: 3 },
    { brand: 'diners', prefixes: [[300, 305], [3095, 3095], [36, 36], [38, 39]], lengths: [14, 15, 16, 17, 18, 19], cvv: 3 },
    { brand: 'unionpay', prefixes: [[62, 62], [81, 81]], lengths: [16, 17, 18, 19], cvv: 3 },
    { brand: 'maestro', prefixes: [[50, 50], [56, 58], [6304, 6304], [6390, 6390], [67, 67]], lengths: [13, 14, 15, 16, 17, 18, 19], cvv: 3 },
    { brand: 'mir', prefixes: [[2200, 2204]], lengths: [16, 17, 18, 19], cvv: 3 }
  ];

  function digits(value) {
    return String(value).replace(/\D/g, '');
  }

  function luhn(pan) {
    var sum = 0;
    for (var i = 0; i < pan.length; i++) {
      var d = pan.charCodeAt(pan.length - 1 - i) - 48;
      if (i % 2 === 1) d = d * 2 > 9 ? d * 2 - 9 : d * 2;
      sum += d;
    }
    return pan.length > 0 && sum % 10 === 0;
  }

  /** The brand whose prefix range matches the longest prefix (lengths checked only when `exact`). */
  function brandOf(pan, exact) {
    var best = null;
    var bestLength = 0;
    BRANDS.forEach(function (rule) {
      if (exact && rule.lengths.indexOf(pan.length) < 0) return;
      rule.prefixes.forEach(function (range) {
        var size = String(range[0]).length;
        if (pan.length < size) return;
        var head = Number(pan.slice(0, size));
        if (head >= range[0] && head <= range[1] && size > bestLength) {
          best = rule;
          bestLength = size;
        }
      });
    });
    return best;
  }

  function parseExpiry(text) {
    var m = /^\s*(\d{1,2})\s*\/\s*(\d{2}|\d{4})\s*$/.exec(text);
    if (!m) return null;
    var month = Number(m[1]);
    var year = m[2].length === 2 ? 2000 + Number(m[2]) : Number(m[2]);
    return month >= 1 && month <= 12 ? { month: month, year: year } : null;
  }

  function valid() {
    var value = input.value;
    if (field === 'card') {
      var pan = digits(value);
      return pan.length >= 13 && pan.length <= 19 && luhn(pan) && brandOf(pan, true) !== null;
    }
    if (field === 'expiry') {
      var e = parseExpiry(value);
      return e !== null && Date.UTC(e.year, e.month, 1) > Date.now();
    }
    return /^\d{3,4}$/.test(value);
  }

  // --- formatting as the payer types ------------------------------------------------------------------

  function formatCard(value) {
    var pan = digits(value).slice(0, 19);
    var rule = brandOf(pan, false);
    var groups = rule && rule.brand === 'amex' ? [4, 6, 5] : [4, 4, 4, 4, 3];
    var out = [];
    var at = 0;
    for (var i = 0; i < groups.length && at < pan.length; i++) {
      out.push(pan.slice(at, at + groups[i]));
      at += groups[i];
    }
    return out.join(' ');
  }

  function formatExpiry(value, deleting) {
    var d = digits(value).slice(0, 6);
    if (d.length === 1 && d > '1') d = '0' + d;
    if (d.length > 2) return d.slice(0, 2) + '/' + d.slice(2, d.length === 6 ? 6 : 4);
    if (d.length === 2 && !deleting) return d + '/';
    return d;
  }

  function format(event) {
    var before = input.value;
    var deleting = event && typeof event.inputType === 'string' && event.inputType.indexOf('delete') === 0;
    var after = field === 'card' ? formatCard(before) : field === 'expiry' ? formatExpiry(before, deleting) : digits(before).slice(0, 4);
    if (after !== before) input.value = after;
  }

  // --- talking to the merchant's page -----------------------------------------------------------------

  function send(message) {
    if (parentOrigin === null) return;
    message.source = NS;
    message.instance = instance;
    message.field = field;
    window.parent.postMessage(message, parentOrigin);
  }

  function notify(kind) {
    var ok = valid();
    input.classList.toggle('valid', ok);
    input.classList.toggle('invalid', !ok && input.value !== '' && kind !== 'input');
    send({ type: 'event', event: kind, valid: ok, empty: input.value === '' });
  }

  input.addEventListener('input', function (event) {
    format(event);
    notify('input');
  });
  input.addEventListener('focus', function () {
    notify('focus');
  });
  input.addEventListener('blur', function () {
    notify('blur');
  });

  // --- the merchant's style, filtered -----------------------------------------------------------------

  var SELECTORS = {
    input: 'input',
    '::placeholder': 'input::placeholder',
    ':focus': 'input:focus',
    ':hover': 'input:hover',
    '.valid': 'input.valid',
    '.invalid': 'input.invalid'
  };
  var PROPERTY = /^(color|caret-color|opacity|background|background-color|box-shadow|width|height|transition|letter-spacing|line-height|font(-(family|size|style|weight|variant|stretch))?|text-(align|shadow|transform|decoration|indent)|padding(-(top|right|bottom|left))?|border(-(top|right|bottom|left))?(-(color|style|width|radius))?|border-radius|outline(-(color|style|width|offset))?|-webkit-text-fill-color|-webkit-font-smoothing|-moz-osx-font-smoothing)$/;
  var UNSAFE_VALUE = /[;{}<>\\@]|url\s*\(|image\s*\(|image-set|expression|import|attr\s*\(/i;

  function kebab(name) {
    return name.replace(/[A-Z]/g, function (c) {
      return '-' + c.toLowerCase();
    });
  }

  function declarations(rules) {
    var out = [];
    Object.keys(rules).slice(0, 40).forEach(function (key) {
      var name = kebab(key);
      var value = rules[key];
      if (typeof value === 'number') value = String(value);
      if (!PROPERTY.test(name) || typeof value !== 'string' || value.length > 200 || UNSAFE_VALUE.test(value)) return;
      out.push(name + ': ' + value);
    });
    return out;
  }

  function applyStyle(style) {
    var link = document.getElementById('field-css');
    var sheet = link && link.sheet;
    if (!sheet || !style || typeof style !== 'object') return;
    Object.keys(SELECTORS).forEach(function (key) {
      var rules = style[key];
      if (!rules || typeof rules !== 'object') return;
      var list = declarations(rules);
      if (list.length === 0) return;
      try {
        sheet.insertRule(SELECTORS[key] + ' { ' + list.join('; ') + ' }', sheet.cssRules.length);
      } catch (e) {
        /* a value the browser does not parse: the rule is skipped */
      }
    });
  }

  // --- collecting the card (card frame) ---------------------------------------------------------------

  /* @shared device-id.js */

  /*
   * The device id the card is posted with: the one the SDK handed over at init (kept in the shop page's storage),
   * else this frame's own (its storage is often refused to a third-party frame).
   */
  var givenDevice = null;
  function cardDeviceId() {
    return givenDevice || deviceId();
  }

  /* @shared random-id.js */

  var MESSAGES = {
    card: 'Invalid card number.',
    expiry: 'This value is not valid.',
    cvv: 'This value is not valid.'
  };
  var SERVER_FIELDS = { card_number: 'card', card_expiry: 'expiry', card_cvv: 'cvv' };

  function finish(data) {
    var request = pending;
    if (!request) return;
    pending = null;
    clearTimeout(request.timer);
    send({ type: 'result', requestId: request.requestId, data: data });
  }

  function browserInfo() {
    var s = window.screen || {};
    return {
      language: navigator.language || '',
      color_depth: s.colorDepth || 0,
      screen_height: s.height || 0,
      screen_width: s.width || 0,
      timezone_offset: new Date().getTimezoneOffset(),
      java_enabled: false,
      javascript_enabled: true
    };
  }

  function serverErrors(body) {
    var list = body && Array.isArray(body.errors) ? body.errors : [];
    return list.map(function (e) {
      var text = String(e.error_message || '');
      var colon = text.indexOf(': ');
      var name = colon > 0 ? text.slice(0, colon) : '';
      return { field: SERVER_FIELDS[name] || name, message: colon > 0 ? text.slice(colon + 2) : text };
    });
  }

  function submit(values) {
    var errors = [];
    ['card', 'expiry', 'cvv'].forEach(function (name) {
      if (!values[name].valid) errors.push({ field: name, message: MESSAGES[name] });
    });
    if (errors.length > 0) return finish({ result: 'error', message: 'Request data is invalid.', errors: errors });
    // The gateway may take a moment: wait longer for it than for the sibling frames.
    clearTimeout(pending.timer);
    pending.timer = setTimeout(function () {
      finish({ result: 'error', message: 'The card data could not be sent.' });
    }, 30000);
    fetch('/hosted-fields/collect', {
      method: 'POST',
      credentials: 'same-origin',
      cache: 'no-store',
      headers: { 'content-type': 'application/json', token: token },
      body: JSON.stringify({ card_number: digits(values.card.value), card_expiry: values.expiry.value, card_cvv: values.cvv.value, browser: browserInfo(), device_id: cardDeviceId() })
    }).then(function (res) {
      return res.json().catch(function () {
        return {};
      }).then(function (body) {
        if (res.status === 200) return finish({ result: 'success', message: 'Card data collected successfully', card: body.card });
        var data = { result: 'error', message: String((body && body.error_message) || 'The card data could not be sent.') };
        var fields = serverErrors(body);
        if (fields.length > 0) data.errors = fields;
        finish(data);
      });
    }, function () {
      finish({ result: 'error', message: 'The card data could not be sent.' });
    });
  }

  function collect(requestId) {
    if (pending) return send({ type: 'result', requestId: requestId, data: { result: 'error', message: 'A submission is already in progress.' } });
    pending = {
      requestId: requestId,
      nonce: randomId(),
      values: { card: { value: input.value, valid: valid() } },
      timer: setTimeout(function () {
        finish({ result: 'error', message: 'The card fields did not answer.' });
      }, 5000)
    };
    var frames = window.parent.frames;
    for (var i = 0; i < frames.length; i++) {
      var other = frames[i];
      if (other === window) continue;
      try {
        other.postMessage({ source: NS, type: 'value-request', instance: instance, token: token, nonce: pending.nonce }, ORIGIN);
      } catch (e) {
        /* a frame that went away */
      }
    }
  }

  // --- messages ---------------------------------------------------------------------------------------

  function onInit(event, data) {
    if (parentOrigin !== null) return; // bound once, to one page
    if (event.origin === 'null' || typeof data.token !== 'string' || !TOKEN_SHAPE.test(data.token)) return;
    if (typeof data.instance !== 'string' || !/^[0-9a-f]{8,64}$/.test(data.instance) || data.field !== field) return;
    parentOrigin = event.origin;
    token = data.token;
    instance = data.instance;
    if (typeof data.placeholder === 'string') input.placeholder = data.placeholder.slice(0, 64);
    if (typeof data.device === 'string' && /^[A-Za-z0-9_-]{16,64}$/.test(data.device)) givenDevice = data.device;
    applyStyle(data.style);
    input.disabled = false;
    send({ type: 'ready' });
  }

  window.addEventListener('message', function (event) {
    var data = event.data;
    if (!data || typeof data !== 'object' || data.source !== NS) return;
    if (event.source === window.parent && window.parent !== window) {
      if (data.type === 'init') return onInit(event, data);
      if (event.origin === parentOrigin && data.instance === instance && data.type === 'collect' && field === 'card' && typeof data.requestId === 'string') {
        return collect(data.requestId);
      }
    }
    // From here on only this gateway's own frames of the same instance and session are listened to.
    if (event.origin !== ORIGIN || token === null || data.instance !== instance || data.token !== token) return;
    if (data.type === 'value-request' && event.source && event.source !== window) {
      event.source.postMessage({ source: NS, type: 'value', instance: instance, token: token, nonce: data.nonce, field: field, value: input.value, valid: valid() }, ORIGIN);
      return;
    }
    if (data.type === 'value' && pending && data.nonce === pending.nonce && (data.field === 'expiry' || data.field === 'cvv')) {
      pending.values[data.field] = { value: String(data.value), valid: data.valid === true };
      if (!pending.submitted && pending.values.expiry && pending.values.cvv) {
        pending.submitted = true;
        submit(pending.values);
      }
    }
  });
})();
