#ifndef DRIFT_CSERIALPORT_SHIM_H
#define DRIFT_CSERIALPORT_SHIM_H
#include <libserialport.h>
#endif
