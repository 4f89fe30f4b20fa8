/** A table's or chart's CSV link (`what` names it to screen readers); nothing without `href`. */
export function CsvLink({ href, what }: { href: string | undefined; what: string }) {
  return href === undefined ? null : (
    <a class="csv-link" href={href} download>
      CSV<span class="sr-only"> of {what}</span>
    </a>
  );
}
