/* Portcullis hosted Checkout page: the wallet buttons (issue 16). Each button runs a payment sheet and posts the
   token it returns to /checkout/<id>/wallet (the #wallet-form), where the gateway applies the wallet flow rules.
   - simulator (sandbox merchants): the gateway's own sheet (#wallet-sheet); the token is made by the gateway's
     wallet simulator, genuinely encrypted and signed with the sandbox's test keys. Nothing loads from outside.
   - live, Google Pay: Google's PaymentsClient (pay.google.com/gp/p/js/pay.js, allowed by this page's CSP only on a
     live merchant's page) with the PaymentDataRequest in the page configuration.
   - live, Apple Pay: Safari's ApplePaySession, the merchant validated through the gateway
     (/checkout/<id>/applepay/validate).
   No inline code: configuration comes from <script type="application/json" id="config">. */
(function () {
  'use strict';

  var doc = document;
  var config = {};
  try {
    config = JSON.parse((doc.getElementById('config') || {}).textContent || '{}') || {};
  } catch (e) {
    config = {};
  }
  var wallets = config.wallets || [];
  var urls = config.walletUrls || {};
  var messages = config.messages || {};
  var form = doc.getElementById('wallet-form');
  if (!wallets.length || !form) return;

  var LABELS = { applepay: 'Apple Pay', googlepay: 'Google Pay' };

  function byMethod(method) {
    for (var i = 0; i < wallets.length; i++) if (wallets[i].method === method) return wallets[i];
    return null;
  }

  /** A message about one button (its method key), naming its wallet. */
  function showError(method, key, fallback) {
    var w = byMethod(method);
    var el = doc.getElementById('wallet-error-' + method);
    if (!el || !w) return;
    el.textContent = (messages[key] || fallback).split('{method}').join(LABELS[w.wallet] || w.wallet);
    el.hidden = false;
  }

  function post(url, fields) {
    return fetch(url, {
      method: 'POST',
      credentials: 'same-origin',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams(fields).toString(),
    }).then(function (res) {
      if (!res.ok) throw new Error('HTTP ' + res.status);
      return res.json();
    });
  }

  /** The sheet's token goes to the gateway as a plain form POST (with a page variant's payer fields): the answer is the next page. */
  function submitToken(w, token) {
    // Only this wallet's payer fields go (two page variants ask fields of the same names).
    var boxes = doc.querySelectorAll('.express-wallet');
    for (var b = 0; b < boxes.length; b++) {
      if (boxes[b].getAttribute('data-method') === w.method) continue;
      var others = boxes[b].querySelectorAll('input, select, textarea');
      for (var o = 0; o < others.length; o++) others[o].disabled = true;
    }
    form.elements.method.value = w.method;
    form.elements.wallet.value = w.wallet;
    form.elements.payment_token.value = token;
    form.submit();
  }

  // --- the sandbox simulator's sheet --------------------------------------------------------------
  var sheet = doc.getElementById('wallet-sheet');
  var sheetFor = null;

  function openSimulator(w) {
    if (!sheet || typeof sheet.showModal !== 'function') return showError(w.method, 'wallet.notSupported', 'This browser cannot pay with {method}.');
    sheetFor = w;
    var title = doc.getElementById('wallet-sheet-title');
    if (title) title.textContent = sheet.getAttribute('data-title-' + w.wallet) || title.textContent;
    sheet.showModal();
  }

  if (sheet) {
    var payButton = doc.getElementById('wallet-sheet-pay');
    var cancelButton = doc.getElementById('wallet-sheet-cancel');
    payButton.addEventListener('click', function () {
      var w = sheetFor;
      var card = doc.getElementById('wallet-sheet-card');
      payButton.disabled = true;
      post(urls.token, { wallet: w.wallet, card: card ? card.value : 'success' }).then(function (answer) {
        sheet.close();
        submitToken(w, answer.payment_token);
      }, function () {
        payButton.disabled = false;
        sheet.close();
        showError(w.method, 'wallet.failed', 'The wallet did not return a payment.');
      });
    });
    cancelButton.addEventListener('click', function () {
      sheet.close();
    });
  }

  // --- live Google Pay ----------------------------------------------------------------------------
  var googleClient = null;

  function googleRequest(w) {
    var request = JSON.parse(JSON.stringify(w.request));
    delete request.environment;
    return request;
  }

  function prepareGoogle(w) {
    var button = doc.getElementById('wallet-button-' + w.method);
    if (button) button.disabled = true;
    var script = doc.createElement('script');
    script.src = 'https://pay.google.com/gp/p/js/pay.js';
    script.async = true;
    script.onload = function () {
      var request = googleRequest(w);
      googleClient = new window.google.payments.api.PaymentsClient({ environment: w.request.environment });
      googleClient.isReadyToPay({ apiVersion: request.apiVersion, apiVersionMinor: request.apiVersionMinor, allowedPaymentMethods: request.allowedPaymentMethods })
        .then(function (ready) {
          if (ready && ready.result && button) button.disabled = false;
          else showError(w.method, 'wallet.notSupported', 'This browser cannot pay with {method}.');
        }, function () {
          showError(w.method, 'wallet.notSupported', 'This browser cannot pay with {method}.');
        });
    };
    script.onerror = function () {
      showError(w.method, 'wallet.notSupported', 'This browser cannot pay with {method}.');
    };
    doc.head.appendChild(script);
  }

  function payGoogle(w) {
    if (!googleClient) return;
    // Called in the click itself: Google's sheet opens only from a user gesture.
    googleClient.loadPaymentData(googleRequest(w)).then(function (data) {
      submitToken(w, data.paymentMethodData.tokenizationData.token);
    }, function (err) {
      if (!err || err.statusCode !== 'CANCELED') showError(w.method, 'wallet.failed', 'The wallet did not return a payment.');
    });
  }

  // --- live Apple Pay -----------------------------------------------------------------------------
  function appleAvailable() {
    return typeof window.ApplePaySession === 'function' && window.ApplePaySession.canMakePayments();
  }

  function payApple(w) {
    if (!appleAvailable()) return showError(w.method, 'wallet.notSupported', 'This browser cannot pay with {method}.');
    var Session = window.ApplePaySession;
    var session = new Session(3, w.request);
    session.onvalidatemerchant = function (event) {
      post(urls.validate, { validation_url: event.validationURL }).then(function (merchantSession) {
        session.completeMerchantValidation(merchantSession);
      }, function () {
        session.abort();
        showError(w.method, 'wallet.failed', 'The wallet did not return a payment.');
      });
    };
    session.onpaymentauthorized = function (event) {
      session.completePayment(Session.STATUS_SUCCESS);
      submitToken(w, JSON.stringify(event.payment.token));
    };
    session.begin();
  }

  /** The payer fields above this wallet's button (at the top of the page, beside the other wallets'), checked. */
  function fieldsValid(method) {
    var boxes = doc.querySelectorAll('.express-wallet');
    for (var b = 0; b < boxes.length; b++) {
      if (boxes[b].getAttribute('data-method') !== method) continue;
      var inputs = boxes[b].querySelectorAll('input, select, textarea');
      for (var i = 0; i < inputs.length; i++) {
        if (!inputs[i].checkValidity()) {
          inputs[i].reportValidity();
          return false;
        }
      }
    }
    return true;
  }

  // --- the buttons, and the page's own Pay button while a wallet is the chosen method ---------------
  function run(method) {
    var w = byMethod(method);
    if (!w) return;
    // A payment-page variant's payer fields first (they belong to #wallet-form; only this wallet's are asked).
    if (!fieldsValid(method)) return;
    if (w.mode === 'simulator') return openSimulator(w);
    if (w.wallet === 'googlepay') return payGoogle(w);
    return payApple(w);
  }

  wallets.forEach(function (w) {
    var button = doc.getElementById('wallet-button-' + w.method);
    if (!button) return;
    if (w.mode === 'live' && w.wallet === 'googlepay') prepareGoogle(w);
    if (w.mode === 'live' && w.wallet === 'applepay' && !appleAvailable()) {
      button.disabled = true;
      showError(w.method, 'wallet.notSupported', 'This browser cannot pay with {method}.');
    }
    button.addEventListener('click', function () {
      run(w.method);
    });
  });

  function chosenMethod(payForm) {
    var checked = payForm.querySelector('input[name="method"]:checked');
    if (checked) return checked.value;
    var only = payForm.querySelector('input[type="hidden"][name="method"]');
    return only ? only.value : '';
  }

  // Capture phase: before checkout.js marks the form busy, the Pay button of a wallet method opens its sheet.
  doc.addEventListener('submit', function (event) {
    var payForm = event.target;
    if (!payForm || payForm.id !== 'pay-form') return;
    var method = chosenMethod(payForm);
    if (!byMethod(method)) return;
    event.preventDefault();
    event.stopImmediatePropagation();
    run(method);
  }, true);
})();
