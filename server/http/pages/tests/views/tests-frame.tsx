import type { ComponentChildren } from 'preact';
import {
  type Chrome,
  DashboardLayout,
  type LayoutProps,
  SharedFrame,
} from '../../dashboard/views/dashboard-layout.js';

/**
 * Where a Tests page is shown: on the owner's dashboard (signed in, with the quarantine form), or
 * on a share link (read-only: no form, no owner-only link). The views are the same otherwise.
 */
export type TestsFrame =
  | ({ kind: 'owner' } & Omit<LayoutProps, 'title' | 'section' | 'children'>)
  | { kind: 'share'; chrome: Chrome };

/** The page around a Tests view: the dashboard's layout, or a share link's frame. */
export function TestsPage({
  frame,
  title,
  children,
}: {
  frame: TestsFrame;
  title: string;
  children: ComponentChildren;
}) {
  return frame.kind === 'owner' ? (
    <DashboardLayout {...frame} title={title} section="projects">
      {children}
    </DashboardLayout>
  ) : (
    <SharedFrame title={title} chrome={frame.chrome}>
      {children}
    </SharedFrame>
  );
}
