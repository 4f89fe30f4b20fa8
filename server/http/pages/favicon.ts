/** The site's icon: a small bar chart, the product's mark. */
export const FAVICON_SVG = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect width="32" height="32" rx="7" fill="#0a5bb5"/><rect x="7" y="16" width="4" height="9" rx="1" fill="#fff"/><rect x="14" y="10" width="4" height="15" rx="1" fill="#fff"/><rect x="21" y="6" width="4" height="19" rx="1" fill="#fff"/></svg>`;
