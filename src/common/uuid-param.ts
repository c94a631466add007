import { Param, ParseUUIDPipe } from '@nestjs/common';

/** A path id that must be a UUID; anything else is a 400 before any lookup. */
export const UuidParam = (name = 'id') => Param(name, new ParseUUIDPipe({ version: undefined }));
