/* The sandbox demo shop's script (/sandbox/shop): the hosted payment fields wired as a merchant would, with the
   processing call made from the page for the demo (a real shop makes it from its backend, with the token). */
(function () {
  'use strict';
  var el = document.getElementById('config');
  var config = {};
  try {
    config = JSON.parse((el && el.textContent) || '{}') || {};
  } catch (e) {
    config = {};
  }
  if (!config.token || typeof window.HostedFields !== 'function') return;
  var pay = document.getElementById('shop-pay');
  var result = document.getElementById('shop-result');
  var hf = new window.HostedFields();
  hf.onReady = function () {
    pay.disabled = false;
  };
  hf.onSubmitResult = function (data) {
    if (data.result !== 'success') {
      result.textContent = data.message || 'Check the card details.';
      pay.disabled = false;
      return;
    }
    fetch('/api/v1/processing/purchase/card', {
      method: 'POST',
      headers: { 'content-type': 'application/json', token: config.token },
      body: JSON.stringify({ name: document.getElementById('shop-name').value, with_hosted_fields: true })
    })
      .then(function (r) {
        return r.json();
      })
      .then(function (answer) {
        if (answer.result === 'redirect' && answer.redirect_url) {
          var form = document.createElement('form');
          form.method = answer.redirect_method || 'POST';
          form.action = answer.redirect_url;
          Object.keys(answer.redirect_params || {}).forEach(function (k) {
            var input = document.createElement('input');
            input.type = 'hidden';
            input.name = k;
            input.value = answer.redirect_params[k];
            form.appendChild(input);
          });
          document.body.appendChild(form);
          form.submit();
          return;
        }
        result.textContent = answer.result === 'success' ? 'Paid: ' + answer.public_id : answer.decline_message || answer.error_message || answer.result;
        result.setAttribute('data-result', answer.result || 'error');
      });
  };
  pay.addEventListener('click', function () {
    pay.disabled = true;
    result.textContent = '';
    hf.collectIframesData();
  });
  hf.init({
    sessionToken: config.token,
    fields: {
      card: { id: 'shop-card', placeholder: '4111 1111 1111 1111' },
      expiry: { id: 'shop-expiry', placeholder: 'MM/YY' },
      cvv: { id: 'shop-cvv', placeholder: 'CVC' }
    },
    style: { input: { 'font-size': '16px', color: '#101828' } }
  });
})();
