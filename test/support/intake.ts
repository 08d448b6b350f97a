// Shared by the mail intake tests: the key mailbox secrets are sealed with.

export const SECRET_KEY = 'a3f1c9e07b5d2468ace0135797531bdf02468ace13579bdf0f1e2d3c4b5a6978';
