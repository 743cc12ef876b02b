/* Portcullis hosted pages: progressive enhancement for the Checkout, ACS, provider and redirect pages.
   Every flow also works without this file (plain form POSTs and links). No inline code: configuration
   comes from <script type="application/json" id="config">. The validation rules and messages mirror
   src/web/checkout-form.ts, which the server applies in any case. */
(function () {
  'use strict';

  var doc = document;
  doc.documentElement.classList.add('js');

  function readConfig() {
    var el = doc.getElementById('config');
    if (!el) return {};
    try {
      return JSON.parse(el.textContent || '{}') || {};
    } catch (e) {
      return {};
    }
  }

  var config = readConfig();
  var page = doc.body ? doc.body.getAttribute('data-page') : '';

  function each(list, fn) {
    Array.prototype.forEach.call(list, fn);
  }

  // ------------------------------------------------------------------------------------------------
  // One submission per form: the first submit marks the form busy; later submits are dropped.
  // Buttons are disabled only after the submit event, so the clicked button's name/value still posts.

  function guardOnce(form, validate) {
    var buttons = form.querySelectorAll('button[type="submit"], button:not([type])');
    var labels = [];
    each(buttons, function (b, i) {
      var l = b.querySelector('.btn-label');
      labels[i] = l ? l.textContent : null;
    });

    function reset() {
      form.removeAttribute('data-submitting');
      each(buttons, function (b, i) {
        b.disabled = false;
        b.removeAttribute('aria-disabled');
        b.classList.remove('is-busy');
        var l = b.querySelector('.btn-label');
        if (l && labels[i] !== null) l.textContent = labels[i];
      });
    }

    form.addEventListener('submit', function (e) {
      if (form.hasAttribute('data-submitting')) {
        e.preventDefault();
        return;
      }
      if (validate && !validate(e)) {
        e.preventDefault();
        return;
      }
      form.setAttribute('data-submitting', '');
      var submitter = e.submitter || form.querySelector('button[type="submit"]');
      each(buttons, function (b) {
        b.setAttribute('aria-disabled', 'true');
      });
      if (submitter) {
        submitter.classList.add('is-busy');
        var l = submitter.querySelector('.btn-label');
        if (l) l.textContent = t('button.processing', 'Processing\u2026');
      }
      setTimeout(function () {
        each(buttons, function (b) {
          b.disabled = true;
        });
      }, 0);
    });

    // Back/forward cache: a page restored after leaving must be usable again.
    window.addEventListener('pageshow', function (e) {
      if (e.persisted) reset();
    });
    return { reset: reset };
  }

  // ------------------------------------------------------------------------------------------------
  // Validation rules (same as the server's)

  // The messages come from the page (its locale's catalog, src/web/locales); English is the fallback.
  var T = config.messages || {};
  function t(key, fallback, params) {
    var text = T[key] || fallback;
    if (params) {
      Object.keys(params).forEach(function (k) {
        text = text.split('{' + k + '}').join(String(params[k]));
      });
    }
    return text;
  }
  var M = {
    cardNumberEmpty: t('form.cardNumberEmpty', 'Enter the card number'),
    cardNumberLength: t('form.cardNumberLength', 'Enter a card number of 13 to 19 digits'),
    cardNumberLuhn: t('form.cardNumberLuhn', 'This card number is not valid. Check it and try again'),
    expiryEmpty: t('form.expiryEmpty', 'Enter the expiry date'),
    expiryFormat: t('form.expiryFormat', 'Enter the expiry date as MM/YY'),
    expiryPast: t('form.expiryPast', 'This card has expired'),
    cvvEmpty: t('form.cvvEmpty', 'Enter the security code'),
    cvvFormat: t('form.cvvFormat', 'The security code is 3 or 4 digits'),
    holderEmpty: t('form.holderEmpty', 'Enter the name on the card'),
    holderLength: t('form.holderLength', 'The name on the card can be at most 32 characters'),
    holderChars: t('form.holderChars', 'The name can contain only letters, spaces, apostrophes, dots and hyphens'),
    country: t('form.country', 'Select a country'),
    stateEmpty: t('form.stateEmpty', 'Enter the state or province'),
    stateFormat: t('form.stateFormat', 'Enter the 2-letter state or province code (2 to 32 characters)'),
    city: t('form.city', 'Enter the city (2 to 40 characters)'),
    address: t('form.address', 'Enter the street address (2 to 32 characters)'),
    zip: t('form.zip', 'Enter the postal code (2 to 10 characters)'),
    phone: t('form.phone', 'Enter a phone number of up to 32 digits, spaces, +, ( ) and -'),
    emailEmpty: t('form.emailEmpty', 'Enter your email address'),
    email: t('form.email', 'Enter a valid email address, like name@example.com')
  };

  function luhn(digits) {
    var sum = 0;
    var dbl = false;
    for (var i = digits.length - 1; i >= 0; i--) {
      var d = digits.charCodeAt(i) - 48;
      if (dbl) {
        d *= 2;
        if (d > 9) d -= 9;
      }
      sum += d;
      dbl = !dbl;
    }
    return sum % 10 === 0;
  }

  function squash(v) {
    return v.trim().replace(/\s+/g, ' ');
  }

  function between(v, min, max) {
    return v.length >= min && v.length <= max;
  }

  var HOLDER_CHARS;
  try {
    HOLDER_CHARS = new RegExp("^[\\p{L}\\p{M}' .-]+$", 'u');
  } catch (e) {
    HOLDER_CHARS = /^[^0-9!"#$%&()*+,/:;<=>?@[\\\]^_`{|}~]+$/;
  }
  var HAS_LETTER;
  try {
    HAS_LETTER = new RegExp('\\p{L}', 'u');
  } catch (e) {
    HAS_LETTER = /[A-Za-z\u00C0-\uFFFF]/;
  }

  function parseExpiry(v) {
    var m = /^\s*(\d{1,2})\s*\/?\s*(\d{2}|\d{4})\s*$/.exec(v);
    if (!m || (m[1].length === 1 && v.indexOf('/') < 0)) return null;
    var month = Number(m[1]);
    if (month < 1 || month > 12) return null;
    return { month: month, year: m[2].length === 2 ? 2000 + Number(m[2]) : Number(m[2]) };
  }

  var RULES = {
    'card-number': function (v) {
      if (v.trim() === '') return M.cardNumberEmpty;
      var d = v.replace(/[\s-]/g, '');
      if (!/^\d+$/.test(d) || d.length < 13 || d.length > 19) return M.cardNumberLength;
      if (!luhn(d)) return M.cardNumberLuhn;
      return '';
    },
    expiry: function (v) {
      if (v.trim() === '') return M.expiryEmpty;
      var exp = parseExpiry(v);
      if (!exp) return M.expiryFormat;
      var now = new Date(Date.now() + clockOffset);
      var y = now.getUTCFullYear();
      var mo = now.getUTCMonth() + 1;
      if (exp.year < y || (exp.year === y && exp.month < mo)) return M.expiryPast;
      return '';
    },
    cvv: function (v) {
      if (v.trim() === '') return M.cvvEmpty;
      return /^\d{3,4}$/.test(v.trim()) ? '' : M.cvvFormat;
    },
    holder: function (v) {
      var name = squash(v);
      if (name === '') return M.holderEmpty;
      if (name.length > 32) return M.holderLength;
      // One word is a name too (mononyms, company cards): only the characters are checked.
      return HOLDER_CHARS.test(name) && HAS_LETTER.test(name) ? '' : M.holderChars;
    },
    email: function (v, input) {
      var s = v.trim();
      if (s === '') return input.required ? M.emailEmpty : '';
      return s.length <= 255 && /^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(s) ? '' : M.email;
    },
    country: function (v) {
      return v ? '' : M.country;
    },
    state: function (v) {
      var s = squash(v);
      if (s === '') return M.stateEmpty;
      return between(s, 2, 32) ? '' : M.stateFormat;
    },
    city: function (v) {
      return between(squash(v), 2, 40) ? '' : M.city;
    },
    address: function (v) {
      return between(squash(v), 2, 32) ? '' : M.address;
    },
    zip: function (v) {
      return between(squash(v), 2, 10) ? '' : M.zip;
    },
    phone: function (v) {
      var s = squash(v);
      return s === '' || /^[0-9 +()-]{1,32}$/.test(s) ? '' : M.phone;
    }
  };

  // ------------------------------------------------------------------------------------------------
  // Inline errors

  function setError(input, message) {
    var id = input.id;
    var err = doc.getElementById(id + '-error');
    var wrap = input.closest('.field');
    var errId = id + '-error';
    var described = (input.getAttribute('aria-describedby') || '').split(/\s+/).filter(function (x) {
      return x && x !== errId;
    });
    if (message) {
      if (err) {
        err.querySelector('span').textContent = message;
        err.hidden = false;
        described.push(errId);
      }
      input.setAttribute('aria-invalid', 'true');
      if (wrap) wrap.classList.add('field--invalid');
    } else {
      if (err) {
        err.hidden = true;
        err.querySelector('span').textContent = '';
      }
      input.removeAttribute('aria-invalid');
      if (wrap) wrap.classList.remove('field--invalid');
      dropFromSummary(id);
    }
    if (described.length) input.setAttribute('aria-describedby', described.join(' '));
    else input.removeAttribute('aria-describedby');
  }

  /**
   * The error summary follows the fields: a corrected field leaves the list, the title counts what is left, and
   * the summary goes once nothing is (a decline's message stays until the next attempt).
   */
  function dropFromSummary(id) {
    var summary = doc.getElementById('error-summary');
    if (!summary || summary.hidden) return;
    var link = summary.querySelector('a[data-focus="' + id + '"]');
    if (!link) return;
    var li = link.closest('li');
    if (li) li.remove();
    var left = summary.querySelectorAll('.error-summary-list li').length;
    var title = doc.getElementById('error-summary-title');
    if (left === 0 && !summary.hasAttribute('data-decline') && !summary.querySelector('.error-summary-text')) {
      summary.hidden = true;
    } else if (left > 0 && title && !summary.hasAttribute('data-decline') && !summary.querySelector('.error-summary-text')) {
      title.textContent = left === 1 ? t('summary.one', 'Check the highlighted detail') : t('summary.many', 'Check the {count} highlighted details', { count: left });
    }
  }

  function labelOf(input) {
    var label = doc.querySelector('label[for="' + input.id + '"]');
    if (!label) return '';
    var clone = label.cloneNode(true);
    each(clone.querySelectorAll('.optional'), function (o) {
      o.remove();
    });
    return clone.textContent.trim();
  }

  // ------------------------------------------------------------------------------------------------
  // Card number and expiry formatting

  // Brand, its badge colour and the digit groups it is printed in.
  var BRANDS = [
    ['Amex', /^3[47]/, '#1f72cd', [4, 6, 5]],
    ['Visa', /^4/, '#1a1f71', [4, 4, 4, 4, 3]],
    ['Mastercard', /^(5[1-5]|2(2[2-9]|[3-6]\d|7[01]|720))/, '#eb001b', [4, 4, 4, 4]],
    ['Discover', /^(6011|65|64[4-9])/, '#ff6000', [4, 4, 4, 4, 3]],
    ['JCB', /^35(2[89]|[3-8])/, '#0e4c96', [4, 4, 4, 4, 3]],
    ['Diners', /^3(0[0-5]|[689])/, '#0079be', [4, 6, 4, 5]],
    ['UnionPay', /^62/, '#d10429', [4, 4, 4, 4, 3]],
    ['Mir', /^220[0-4]/, '#0f754e', [4, 4, 4, 4, 3]],
    ['Maestro', /^(5[06-9]|6)/, '#0099df', [4, 4, 4, 4, 3]]
  ];
  var SVG_NS = 'http://www.w3.org/2000/svg';

  function brandOf(digits) {
    for (var i = 0; i < BRANDS.length; i++) if (BRANDS[i][1].test(digits)) return BRANDS[i];
    return null;
  }

  /** The brand's badge: an inline SVG card in the brand's colour with its name (no image requests, CSP-safe). */
  function brandBadge(brand) {
    var svg = doc.createElementNS(SVG_NS, 'svg');
    svg.setAttribute('viewBox', '0 0 48 30');
    svg.setAttribute('width', '40');
    svg.setAttribute('height', '25');
    svg.setAttribute('aria-hidden', 'true');
    svg.setAttribute('focusable', 'false');
    svg.setAttribute('class', 'brand-badge');
    var rect = doc.createElementNS(SVG_NS, 'rect');
    rect.setAttribute('width', '48');
    rect.setAttribute('height', '30');
    rect.setAttribute('rx', '4');
    rect.setAttribute('fill', brand[2]);
    var text = doc.createElementNS(SVG_NS, 'text');
    text.setAttribute('x', '24');
    text.setAttribute('y', '19');
    text.setAttribute('text-anchor', 'middle');
    text.setAttribute('fill', '#fff');
    text.setAttribute('font-size', brand[0].length > 6 ? '8' : '10');
    text.setAttribute('font-weight', '700');
    text.setAttribute('font-family', 'system-ui, sans-serif');
    text.textContent = brand[0];
    svg.appendChild(rect);
    svg.appendChild(text);
    return svg;
  }

  function groupCard(digits) {
    var brand = brandOf(digits);
    var sizes = brand ? brand[3] : [4, 4, 4, 4, 3];
    var out = [];
    var at = 0;
    for (var i = 0; i < sizes.length && at < digits.length; i++) {
      out.push(digits.slice(at, at + sizes[i]));
      at += sizes[i];
    }
    if (at < digits.length) out.push(digits.slice(at));
    return out.join(' ');
  }

  function formatCardNumber(input, brandEl, brandIcon, e, previous) {
    var value = input.value;
    var caret = input.selectionStart === null ? value.length : input.selectionStart;
    var digitsBeforeCaret = value.slice(0, caret).replace(/\D/g, '').length;
    var digits = value.replace(/\D/g, '');
    // Deleting one of our group spaces deletes the digit beside it, as the payer meant.
    if (e && previous !== undefined && digits === previous.replace(/\D/g, '') && value.length < previous.length) {
      if (e.inputType === 'deleteContentBackward' && digitsBeforeCaret > 0) {
        digits = digits.slice(0, digitsBeforeCaret - 1) + digits.slice(digitsBeforeCaret);
        digitsBeforeCaret--;
      } else if (e.inputType === 'deleteContentForward') {
        digits = digits.slice(0, digitsBeforeCaret) + digits.slice(digitsBeforeCaret + 1);
      }
    }
    digits = digits.slice(0, 19);
    var formatted = groupCard(digits);
    if (formatted !== value) {
      input.value = formatted;
      if (doc.activeElement === input) {
        var pos = 0;
        var seen = 0;
        while (pos < formatted.length && seen < digitsBeforeCaret) {
          if (formatted.charAt(pos) !== ' ') seen++;
          pos++;
        }
        input.setSelectionRange(pos, pos);
      }
    }
    if (brandEl) {
      var brand = digits.length ? brandOf(digits) : null;
      var name = brand ? brand[0] : '';
      if (brandEl.getAttribute('data-brand') !== name) {
        brandEl.setAttribute('data-brand', name);
        if (brand) {
          brandEl.textContent = '';
          brandEl.appendChild(brandBadge(brand));
          brandEl.classList.add('is-known');
        } else {
          brandEl.innerHTML = brandIcon;
          brandEl.classList.remove('is-known');
        }
        var spoken = doc.getElementById('card-brand-name');
        if (spoken) spoken.textContent = name;
      }
    }
  }

  function formatExpiry(input, e) {
    var v = input.value;
    var deleting = e && e.inputType && e.inputType.indexOf('delete') === 0;
    var full = /^\s*(\d{1,2})\s*\/\s*(\d{4})\s*$/.exec(v);
    var out;
    if (full) {
      out = (full[1].length === 1 ? '0' : '') + full[1] + '/' + full[2].slice(2);
    } else if (/^\s*\d\s*\/\s*$/.test(v)) {
      out = '0' + v.replace(/\D/g, '') + '/';
    } else {
      var d = v.replace(/\D/g, '');
      if (d.length === 1 && d > '1') d = '0' + d;
      d = d.slice(0, 4);
      out = d.length > 2 ? d.slice(0, 2) + '/' + d.slice(2) : d.length === 2 && !deleting ? d + '/' : d;
    }
    if (out !== v) input.value = out;
  }

  // ------------------------------------------------------------------------------------------------
  // Checkout page

  var clockOffset = 0;

  /* The payer's browser details for 3-D Secure, posted with the form (hidden browser_* inputs). */
  function fillBrowserFields(form) {
    var s = window.screen || {};
    var values = {
      javascript_enabled: 'true',
      color_depth: s.colorDepth,
      screen_height: s.height,
      screen_width: s.width,
      timezone_offset: new Date().getTimezoneOffset(),
      java_enabled: 'false',
      language: navigator.language,
      platform: navigator.platform
    };
    Object.keys(values).forEach(function (name) {
      var input = form.querySelector('input[name="browser_' + name + '"]');
      if (input && values[name] !== undefined && values[name] !== null) input.value = String(values[name]);
    });
  }

  /* @shared device-id.js */

  function initCheckout() {
    // The device id goes with every form of the page: the card and alternative methods' form, the wallets' form.
    var devices = doc.querySelectorAll('input[name="device_id"]');
    for (var dv = 0; dv < devices.length; dv++) devices[dv].value = deviceId();
    var form = doc.getElementById('pay-form');
    if (!form) return;
    form.noValidate = true; // our own messages replace the browser's bubbles
    fillBrowserFields(form);

    var summary = doc.getElementById('error-summary');
    var payButton = doc.getElementById('pay-button');
    var stateCountries = config.stateCountries || []; // the server's list (domain/countries.ts), never a copy
    var expiredUrl = config.expiredUrl;
    var expired = false;

    if (config.serverNow) {
      var serverNow = Date.parse(config.serverNow);
      if (isFinite(serverNow)) clockOffset = serverNow - Date.now();
    }

    // --- method picker: show the chosen panel, disable the fields of the others (they are not posted)
    var radios = form.querySelectorAll('input[name="method"][type="radio"]');
    function syncMethod() {
      var chosen = '';
      each(radios, function (r) {
        if (r.checked) chosen = r.value;
      });
      if (!chosen) return;
      each(form.querySelectorAll('.method-panel'), function (panel) {
        var active = panel.getAttribute('data-method') === chosen;
        panel.classList.toggle('is-active', active);
        each(panel.querySelectorAll('input, select, textarea'), function (el) {
          el.disabled = !active;
        });
      });
    }
    each(radios, function (r) {
      r.addEventListener('change', syncMethod);
    });
    syncMethod();

    // --- billing state: shown and required only for the listed countries
    var country = doc.getElementById('billing_country');
    var state = doc.getElementById('billing_state');
    if (country && state) {
      var stateWrap = state.closest('[data-state-field]');
      var stateHint = doc.getElementById('billing_state-hint');
      if (stateHint) {
        stateHint.hidden = true;
        var ids = (state.getAttribute('aria-describedby') || '').split(/\s+/).filter(function (x) {
          return x && x !== 'billing_state-hint';
        });
        if (ids.length) state.setAttribute('aria-describedby', ids.join(' '));
        else state.removeAttribute('aria-describedby');
      }
      var syncState = function () {
        var need = stateCountries.indexOf(country.value) >= 0;
        if (stateWrap) stateWrap.hidden = !need;
        state.disabled = !need;
        state.required = need;
        if (!need) setError(state, '');
      };
      country.addEventListener('change', syncState);
      syncState();
    }

    // --- formatting
    var number = doc.getElementById('card_number');
    var brandEl = doc.getElementById('card-brand');
    var brandIcon = brandEl ? brandEl.innerHTML : '';
    if (number) {
      var lastNumber = number.value;
      number.addEventListener('input', function (e) {
        formatCardNumber(number, brandEl, brandIcon, e, lastNumber);
        lastNumber = number.value;
      });
      if (number.value) formatCardNumber(number, brandEl, brandIcon);
    }
    var expiry = doc.getElementById('card_expiry');
    if (expiry) {
      expiry.addEventListener('input', function (e) {
        formatExpiry(expiry, e);
      });
    }
    var cvv = doc.getElementById('card_cvv');
    if (cvv) {
      cvv.addEventListener('input', function () {
        var d = cvv.value.replace(/\D/g, '').slice(0, 4);
        if (d !== cvv.value) cvv.value = d;
      });
    }

    // --- validation
    function activeInputs() {
      return Array.prototype.filter.call(form.querySelectorAll('[data-validate]'), function (el) {
        return !el.disabled;
      });
    }
    function check(input) {
      var rule = RULES[input.getAttribute('data-validate')];
      return rule ? rule(input.value, input) : '';
    }
    each(form.querySelectorAll('[data-validate]'), function (input) {
      input.addEventListener('blur', function () {
        if (input.disabled) return;
        if (input.value.trim() !== '' || input.getAttribute('aria-invalid') === 'true') setError(input, check(input));
      });
      var live = function () {
        if (input.getAttribute('aria-invalid') === 'true' && !check(input)) setError(input, '');
      };
      input.addEventListener('input', live);
      input.addEventListener('change', function () {
        if (input.tagName === 'SELECT') setError(input, check(input));
        else live();
      });
    });

    function showSummary(failures) {
      if (!summary) return;
      var title = doc.getElementById('error-summary-title');
      var list = summary.querySelector('.error-summary-list');
      var text = summary.querySelector('.error-summary-text');
      if (text) text.remove();
      title.textContent = failures.length === 1 ? t('summary.one', 'Check the highlighted detail') : t('summary.many', 'Check the {count} highlighted details', { count: failures.length });
      summary.removeAttribute('data-decline');
      list.textContent = '';
      failures.forEach(function (f) {
        var li = doc.createElement('li');
        var a = doc.createElement('a');
        a.href = '#' + f.input.id;
        a.setAttribute('data-focus', f.input.id);
        var hidden = doc.createElement('span');
        hidden.className = 'visually-hidden';
        hidden.textContent = labelOf(f.input) + ': ';
        a.appendChild(hidden);
        a.appendChild(doc.createTextNode(f.message));
        li.appendChild(a);
        list.appendChild(li);
      });
      summary.hidden = false;
      summary.focus();
    }

    if (summary) {
      summary.addEventListener('click', function (e) {
        var a = e.target.closest ? e.target.closest('a[data-focus]') : null;
        if (!a) return;
        var target = doc.getElementById(a.getAttribute('data-focus'));
        if (!target) return;
        e.preventDefault();
        target.focus();
        if (target.scrollIntoView) target.scrollIntoView({ block: 'center' });
      });
    }

    guardOnce(form, function () {
      if (expired) return false;
      var failures = [];
      activeInputs().forEach(function (input) {
        var message = check(input);
        setError(input, message);
        if (message) failures.push({ input: input, message: message });
      });
      if (failures.length) {
        showSummary(failures);
        return false;
      }
      return true;
    });

    if (config.focusErrors && summary && !summary.hidden) summary.focus();

    // --- countdown
    var expiresAt = Date.parse(config.expiresAt);
    var box = doc.getElementById('countdown');
    var text = doc.getElementById('countdown-text');
    var live = doc.getElementById('countdown-live');
    if (!isFinite(expiresAt) || !text) return;
    var time = doc.createElement('time');
    time.id = 'countdown-time';
    time.setAttribute('datetime', config.expiresAt);
    text.textContent = t('countdown.in', 'Session expires in') + ' ';
    text.appendChild(time);
    // One minute before the end a dialog says so (once), and gives the focus back where it was.
    var warning = doc.getElementById('expiry-warning');
    var warned = false;
    var focusBefore = null;
    function warn() {
      if (warned || !warning) return;
      warned = true;
      focusBefore = doc.activeElement;
      warning.hidden = false;
      var ok = doc.getElementById('expiry-warning-ok');
      if (ok) {
        ok.addEventListener('click', function () {
          warning.hidden = true;
          if (focusBefore && focusBefore.focus) focusBefore.focus();
        });
        ok.focus();
      }
    }
    var announced = {};

    function fmt(ms) {
      var total = Math.max(0, Math.ceil(ms / 1000));
      var h = Math.floor(total / 3600);
      var m = Math.floor((total % 3600) / 60);
      var s = total % 60;
      var pad = function (n) {
        return (n < 10 ? '0' : '') + n;
      };
      return h > 0 ? h + ':' + pad(m) + ':' + pad(s) : pad(m) + ':' + pad(s);
    }

    function expire() {
      expired = true;
      text.textContent = t('countdown.expired', 'Session expired');
      if (warning) warning.hidden = true;
      if (box) box.classList.add('is-urgent');
      if (payButton) {
        payButton.disabled = true;
        payButton.setAttribute('aria-disabled', 'true');
      }
      if (live) live.textContent = t('countdown.expiredLive', 'The session has expired.');
      // A payment already on its way is not interrupted; the server answers it.
      if (expiredUrl && !form.hasAttribute('data-submitting')) window.location.replace(expiredUrl);
    }

    function tick() {
      var remaining = expiresAt - (Date.now() + clockOffset);
      if (remaining <= 0) {
        expire();
        return;
      }
      time.textContent = fmt(remaining);
      if (box) box.classList.toggle('is-urgent', remaining <= 60000);
      if (remaining <= 60000) warn();
      [300, 60].forEach(function (mark) {
        if (remaining <= mark * 1000 && remaining > (mark - 10) * 1000 && !announced[mark] && live) {
          announced[mark] = true;
          live.textContent = mark === 60 ? t('countdown.live1', 'Session expires in 1 minute.') : t('countdown.live5', 'Session expires in 5 minutes.');
        }
      });
      var next = remaining % 1000;
      setTimeout(tick, next < 50 ? next + 1000 : next + 5);
    }
    tick();
  }

  // ------------------------------------------------------------------------------------------------
  // Redirect page: go automatically; in a frame, a target that must leave the frame gets a Continue
  // button that opens a new window (interface spec, Override Link Target).

  function initRedirect() {
    var target = config.target || '_self';
    var form = doc.getElementById('redirect-form');
    var link = doc.getElementById('redirect-link');
    var inFrame;
    try {
      inFrame = window.self !== window.top;
    } catch (e) {
      inFrame = true;
    }
    var leaves = target === '_blank' || (inFrame && (target === '_top' || target === '_parent'));
    var targetWindow = target === '_top' ? window.top : target === '_parent' ? window.parent : window;
    var reachable = false;
    if (leaves && target !== '_blank') {
      try {
        reachable = typeof targetWindow.location.href === 'string'; // throws when cross-origin
      } catch (e) {
        reachable = false;
      }
    }

    if (leaves && !reachable) {
      if (form) form.target = '_blank';
      if (link) {
        link.target = '_blank';
        link.rel = 'noopener';
      }
      var spinner = doc.getElementById('redirect-spinner');
      var nojs = doc.getElementById('redirect-nojs');
      var note = doc.getElementById('redirect-window-note');
      if (spinner) spinner.hidden = true;
      if (nojs) nojs.hidden = true;
      if (note) note.hidden = false;
      var receiptCountdown = doc.getElementById('receipt-countdown');
      if (receiptCountdown) receiptCountdown.hidden = true;
      var button = doc.getElementById('redirect-continue') || link;
      if (button) button.focus();
      return;
    }

    function go() {
      if (form) {
        form.target = target;
        form.submit();
      } else if (link) {
        targetWindow.location.href = link.href;
      }
    }
    // A receipt stays for a few seconds, counting down; Continue goes at once.
    var delay = Number(config.delaySeconds) || 0;
    var countdown = doc.getElementById('receipt-countdown');
    if (delay <= 0) return go();
    var left = delay;
    var timer = setInterval(function () {
      left--;
      if (countdown) countdown.textContent = t('receipt.returning', 'Returning you to the merchant in {seconds} seconds.', { seconds: left });
      if (left <= 0) {
        clearInterval(timer);
        go();
      }
    }, 1000);
  }

  // ------------------------------------------------------------------------------------------------

  if (page === 'checkout') initCheckout();
  else if (page === 'redirect') initRedirect();
  else if (page === 'acs' || page === 'provider') {
    each(doc.querySelectorAll('form[data-once]'), function (f) {
      guardOnce(f);
    });
  }
})();
