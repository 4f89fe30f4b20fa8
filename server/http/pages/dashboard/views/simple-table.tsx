import type { ComponentChildren } from 'preact';

/** A table of rows under column headings, or a line saying there is nothing yet. */
export function SimpleTable({
  columns,
  empty,
  children,
}: {
  columns: string[];
  empty: string;
  /** The rows (`<tr>`); none shows `empty`. */
  children: ComponentChildren[];
}) {
  if (children.length === 0) return <p class="empty">{empty}</p>;
  return (
    <div class="table-wrap">
      <table>
        <thead>
          <tr>
            {columns.map((column) => (
              // A column without a heading (a row's buttons) is named to screen readers.
              <th scope="col">{column === '' ? <span class="sr-only">Actions</span> : column}</th>
            ))}
          </tr>
        </thead>
        <tbody>{children}</tbody>
      </table>
    </div>
  );
}
