/*
 * archive_lazy.h -- libarchive loaded on first use (lib/archive_lazy.c).
 *
 * oomlens calls libarchive through <archive.h> as usual; the functions it
 * calls are defined in lib/archive_lazy.c, which loads the library the
 * first time archive_read_new() is called, so a run that opens no
 * archive and no compressed file pays nothing for it at start-up.
 */
#ifndef OOMLENS_ARCHIVE_LAZY_H
#define OOMLENS_ARCHIVE_LAZY_H

/* NULL when libarchive is loaded (loading it if it was not), else why it
 * could not be: the reason archive_read_new() returned NULL. Static text. */
const char *archive_lazy_why(void);

#endif
