#ifndef DRIFT_CMOSQUITTO_SHIM_H
#define DRIFT_CMOSQUITTO_SHIM_H
#include <mosquitto.h>
#endif
