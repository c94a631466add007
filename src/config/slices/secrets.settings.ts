/** The keys that sign tokens and encrypt stored credentials. Injected by the modules that need it. */
export abstract class SecretSettings {
  abstract readonly jwtSecret: string;
  abstract readonly encryptionKey: Buffer;
}
