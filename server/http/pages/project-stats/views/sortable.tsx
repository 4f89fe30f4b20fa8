/** A success rate as the page's tables show it ("–": no success nor failure). */
export const formatRate = (value: number | null) =>
  value === null ? '–' : `${(value * 100).toFixed(1)} %`;

/**
 * A column head of a sortable table (`data-sortable`): the page's script sorts the rows by the
 * cells' `data-value` when its button is pressed; `sort` names the order the server gave.
 */
export function SortHeader(props: {
  name: string;
  kind: 'text' | 'number';
  sort?: 'descending' | undefined;
}) {
  return (
    <th scope="col" aria-sort={props.sort}>
      <button type="button" class="sort" data-sort={props.kind}>
        {props.name}
      </button>
    </th>
  );
}
