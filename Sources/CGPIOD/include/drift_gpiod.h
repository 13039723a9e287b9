#ifndef DRIFT_GPIOD_H
#define DRIFT_GPIOD_H
/* Placeholder: the GPIO shim lands with the GPIO work. */
int dgpio_api_version(void);
#endif
