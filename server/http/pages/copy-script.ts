import type { AssetRegistry } from './assets.js';

/**
 * The copy buttons' script (a new share link, its badges' Markdown, a new API key), served as an
 * asset (CSP `script-src 'self'`): a button `data-copy="<id>"` copies the value of the field with
 * that id and says "Copied". Without it the field is still selectable and read-only.
 */
export const COPY_SCRIPT = `(function () {
  'use strict';
  Array.prototype.forEach.call(document.querySelectorAll('[data-copy]'), function (button) {
    button.addEventListener('click', function () {
      var input = document.getElementById(button.getAttribute('data-copy'));
      if (!input) return;
      input.select();
      var done = function () { button.textContent = 'Copied'; };
      if (navigator.clipboard) navigator.clipboard.writeText(input.value).then(done, function () {});
      else if (document.execCommand('copy')) done();
    });
  });
})();
`;

/** The copy script's address (registered once however many pages use it). */
export function copyScript(assets: AssetRegistry): string {
  return assets.add('copy', 'js', 'text/javascript; charset=utf-8', COPY_SCRIPT);
}
