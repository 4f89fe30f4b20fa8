import * as z from 'zod/mini';
import { Limits } from './limits.js';
import { noNul } from './text-rule.js';

/** A project as E6 and the admin API return it. `created_at` is ISO 8601 UTC with milliseconds. */
export const Project = z.object({ id: z.string(), name: z.string(), created_at: z.string() });
export type Project = z.infer<typeof Project>;

/** E6 200 response body. */
export const ProjectList = z.object({ projects: z.array(Project) });
export type ProjectList = z.infer<typeof ProjectList>;

/** A project's name: trimmed, then 1-100 characters. */
export const ProjectName = z
  .string()
  .check(z.trim(), z.minLength(1), z.maxLength(Limits.projectNameLength), noNul);

/** POST /stats/create-project: a project of the caller's own. */
export const CreateProjectRequest = z.strictObject({ name: ProjectName });
export type CreateProjectRequest = z.infer<typeof CreateProjectRequest>;
