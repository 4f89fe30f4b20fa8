/**
 * The built-in themes of the public page. `theme_id` (E4) may hold any string; an unknown or
 * unset one is shown in the default theme. Each palette's text colours meet WCAG AA (4.5:1)
 * against both of its backgrounds (checked by test/server/themes.test.ts).
 */
export interface Palette {
  /** Page background. */
  background: string;
  /** Cards and blocks. */
  surface: string;
  border: string;
  text: string;
  /** Secondary text: location, mood, footers. */
  muted: string;
  link: string;
  /** The contact button: `accentText` on `accent`. */
  accent: string;
  accentText: string;
}

export interface Theme {
  id: string;
  name: string;
  scheme: 'light' | 'dark';
  font: 'sans' | 'serif' | 'mono';
  /** Corner radius of cards, in px. */
  radius: number;
  palette: Palette;
}

export const THEMES: readonly Theme[] = [
  {
    id: 'paper',
    name: 'Paper',
    scheme: 'light',
    font: 'sans',
    radius: 12,
    palette: {
      background: '#f6f5f1',
      surface: '#ffffff',
      border: '#dcd9d0',
      text: '#1f2328',
      muted: '#59636e',
      link: '#0a5bb5',
      accent: '#0a5bb5',
      accentText: '#ffffff',
    },
  },
  {
    id: 'midnight',
    name: 'Midnight',
    scheme: 'dark',
    font: 'sans',
    radius: 12,
    palette: {
      background: '#0d1117',
      surface: '#161b22',
      border: '#30363d',
      text: '#e6edf3',
      muted: '#9ea8b3',
      link: '#6cb6ff',
      accent: '#6cb6ff',
      accentText: '#0d1117',
    },
  },
  {
    id: 'forest',
    name: 'Forest',
    scheme: 'light',
    font: 'serif',
    radius: 6,
    palette: {
      background: '#eef3ec',
      surface: '#fbfdfa',
      border: '#c5d3c1',
      text: '#1b2a1e',
      muted: '#4a5d4d',
      link: '#1d6b37',
      accent: '#1d6b37',
      accentText: '#ffffff',
    },
  },
  {
    id: 'dusk',
    name: 'Dusk',
    scheme: 'dark',
    font: 'sans',
    radius: 18,
    palette: {
      background: '#1c1a2b',
      surface: '#27233b',
      border: '#3f3959',
      text: '#eeeaff',
      muted: '#b7b0d6',
      link: '#c9b8ff',
      accent: '#c9b8ff',
      accentText: '#1c1a2b',
    },
  },
  {
    id: 'ocean',
    name: 'Ocean',
    scheme: 'light',
    font: 'sans',
    radius: 16,
    palette: {
      background: '#e7f2fa',
      surface: '#ffffff',
      border: '#b9d3e6',
      text: '#0d2638',
      muted: '#3d5a6e',
      link: '#005b94',
      accent: '#005b94',
      accentText: '#ffffff',
    },
  },
  {
    id: 'sunset',
    name: 'Sunset',
    scheme: 'light',
    font: 'serif',
    radius: 10,
    palette: {
      background: '#fff3ea',
      surface: '#fffaf6',
      border: '#efcfbb',
      text: '#3a1d10',
      muted: '#6d4433',
      link: '#a9370f',
      accent: '#a9370f',
      accentText: '#ffffff',
    },
  },
  {
    id: 'terminal',
    name: 'Terminal',
    scheme: 'dark',
    font: 'mono',
    radius: 0,
    palette: {
      background: '#0b0f0b',
      surface: '#111811',
      border: '#2b3f2b',
      text: '#d3f5d3',
      muted: '#9cc49c',
      link: '#7ee787',
      accent: '#7ee787',
      accentText: '#0b0f0b',
    },
  },
];

export const DEFAULT_THEME = THEMES[0] as Theme;

const byId = new Map(THEMES.map((theme) => [theme.id, theme]));

/** The theme a stored `theme_id` selects: the default for an unknown or unset one. */
export function resolveTheme(themeId: string | null): Theme {
  return (themeId !== null && byId.get(themeId)) || DEFAULT_THEME;
}
