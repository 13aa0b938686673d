/**
 * How Tea logs in to a remote MCP server that asks for OAuth (`mcp_servers.<name>.oauth`,
 * all optional): one type for the config that reads it and the client that logs in.
 */
export interface McpOAuthSettings {
  /** A client registered with the authorization server beforehand (else: dynamic registration). */
  clientId?: string;
  clientSecret?: string;
  /** An https URL of a client metadata document, used as the client_id where the server supports it. */
  clientMetadataUrl?: string;
  /** The scope to ask for when the server names none. */
  scope?: string;
  /** A fixed port for the loopback redirect (for clients registered with an exact redirect URI). */
  callbackPort?: number;
  /** `client_credentials`: a machine client, no browser (client_secret, or private_key_file for private_key_jwt). */
  grant?: 'authorization_code' | 'client_credentials';
  /** A PEM private key that signs the client's JWT assertion (private_key_jwt). */
  privateKeyFile?: string;
  /** The JWT signing algorithm of privateKeyFile (default ES256). */
  signingAlgorithm?: string;
}
