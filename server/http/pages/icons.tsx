/** Line icons drawn inline (SVG markup is not script or style: the CSP allows it). */

const Icon = ({ d }: { d: string }) => (
  <svg viewBox="0 0 24 24" aria-hidden="true" focusable="false">
    <path d={d} />
  </svg>
);

export const PinIcon = () => (
  <Icon d="M12 21s-6.5-5.6-6.5-11a6.5 6.5 0 0 1 13 0c0 5.4-6.5 11-6.5 11zM12 12.5a2.5 2.5 0 1 0 0-5 2.5 2.5 0 0 0 0 5z" />
);

export const MoodIcon = () => (
  <Icon d="M12 21a9 9 0 1 0 0-18 9 9 0 0 0 0 18zM8.5 14.5s1.2 1.8 3.5 1.8 3.5-1.8 3.5-1.8M9 9.5h.01M15 9.5h.01" />
);

export const MailIcon = () => <Icon d="M4 6h16v12H4zM4 7l8 6 8-6" />;

export const ArrowIcon = () => <Icon d="M7 17 17 7M9 7h8v8" />;
