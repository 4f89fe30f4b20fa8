/** A project as E6 and the admin API return it. `created_at` is ISO 8601 UTC with milliseconds. */
export interface Project {
  id: string;
  name: string;
  created_at: string;
}

/** E6 200 response body. */
export interface ProjectList {
  projects: Project[];
}
