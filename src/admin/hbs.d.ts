// hbs ships no type declarations; this is the part of its API Portico uses.
declare module 'hbs' {
  import type Handlebars from 'handlebars';

  interface HbsInstance {
    handlebars: typeof Handlebars;
    __express(
      filename: string,
      options: object,
      callback: (error: Error | null, html?: string) => void,
    ): void;
  }

  export function create(handlebars?: typeof Handlebars): HbsInstance;
}
