// SPDX-License-Identifier: MIT
//
// For the tests that run QAbstractItemModelTester: on Qt >= 6.8 the tester checks the
// decoration role against QPixmap's type, which only a loaded QtGui knows ("Trying to
// construct an instance of an invalid type, type id: 4097" otherwise). The models are Qt Core
// only and the tests stay QTEST_GUILESS_MAIN; naming the type keeps QtGui linked (a linker
// with --as-needed drops a library nothing uses), and the check verifies it is known.
#pragma once

#include <QtCore/QMetaType>
#include <QtGui/QPixmap>

inline bool guiTypesAreKnown()
{
    return QMetaType::fromType<QPixmap>().isValid() && QMetaType(QMetaType::QPixmap).isValid();
}
