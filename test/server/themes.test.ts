import { describe, expect, it } from 'vitest';
import { THEMES } from '../../server/domain/themes.js';
import { contrastRatio } from '../helpers/contrast.js';

/** WCAG AA: every colour of text on every background it is drawn on, at least 4.5:1. */
describe.each(THEMES.map((theme) => [theme.id, theme] as const))('theme %s', (_id, theme) => {
  const p = theme.palette;
  it.each([
    ['text on background', p.text, p.background],
    ['text on surface', p.text, p.surface],
    ['muted on background', p.muted, p.background],
    ['muted on surface', p.muted, p.surface],
    ['link on background', p.link, p.background],
    ['link on surface', p.link, p.surface],
    ['button text on accent', p.accentText, p.accent],
  ])('%s meets 4.5:1', (_pair, foreground, background) => {
    expect(contrastRatio(foreground, background)).toBeGreaterThanOrEqual(4.5);
  });
});

it('the catalogue has at least six distinct themes, light and dark among them', () => {
  expect(THEMES.length).toBeGreaterThanOrEqual(6);
  expect(new Set(THEMES.map((t) => t.id)).size).toBe(THEMES.length);
  expect(new Set(THEMES.map((t) => JSON.stringify(t.palette))).size).toBe(THEMES.length);
  expect(new Set(THEMES.map((t) => t.scheme))).toEqual(new Set(['light', 'dark']));
});

it('the ratio is computed as WCAG does', () => {
  expect(contrastRatio('#000000', '#ffffff')).toBeCloseTo(21, 5);
  expect(contrastRatio('#777777', '#ffffff')).toBeCloseTo(4.48, 2);
  expect(contrastRatio('#ffffff', '#ffffff')).toBe(1);
});
