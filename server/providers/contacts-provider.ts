/** The external contact-management service (Brevo in production). */
export interface Contact {
  /** The forwarding address: where the person reads mail. */
  email: string;
  /** Their alias address, `<display_name>@MAIL_DOMAIN`. */
  alias: string;
}

export interface ContactsProvider {
  readonly name: string;
  /** Creates the contact or updates it. */
  upsertContact(contact: Contact): Promise<void>;
}
