/** E5 200 response body. */
export interface UpdateDisplayNameResponse {
  success: true;
  display_name: string;
  alias: string;
}

/** GET /account/get-display-name 200 response body; nulls before a name is set. */
export interface DisplayNameResponse {
  display_name: string | null;
  alias: string | null;
}
