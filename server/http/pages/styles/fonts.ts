import type { Theme } from '../../../domain/themes.js';

/** System font stacks: nothing to download, and every platform has them. */
export const FONT_STACKS: Record<Theme['font'], string> = {
  sans: 'system-ui, -apple-system, "Segoe UI", Roboto, "Noto Sans", "Helvetica Neue", Arial, sans-serif',
  serif:
    'Charter, "Bitstream Charter", "Iowan Old Style", Georgia, "Noto Serif", "DejaVu Serif", serif',
  mono: 'ui-monospace, "SFMono-Regular", "JetBrains Mono", Menlo, Consolas, "DejaVu Sans Mono", monospace',
};
